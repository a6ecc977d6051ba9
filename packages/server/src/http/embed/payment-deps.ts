import { CLIENT_KEY } from '@obolus/js/protocol';
import type { Account } from '../../domain/accounts.ts';
import { ApiError } from '../../domain/errors.ts';
import type { Services } from '../../services.ts';

/** The account of a widget's client key; unknown keys and inactive accounts are refused alike. */
export async function accountForClientKey(services: Services, pk: string): Promise<Account> {
  const account = CLIENT_KEY.test(pk) ? await services.repos.accounts.findByClientKey(pk) : undefined;
  if (account?.status !== 'active') {
    throw new ApiError('client_key_invalid', 'This client key (pk) is not valid.', 'pk');
  }
  return account;
}
