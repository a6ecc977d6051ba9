import { type AccountWithKeys, createAccount } from './domain/accounts.ts';
import type { Services } from './http/services.ts';

/**
 * On the very first start (no account at all) a demo account is made so that the
 * printed curl command works at once. Never again after that: its secret key exists
 * only as a digest, and `obolus keys roll` issues a new one.
 */
export async function ensureDemoAccount(services: Services): Promise<AccountWithKeys | null> {
  if ((await services.repos.accounts.count()) > 0) return null;
  return createAccount(services.repos.accounts, services.clock, {
    name: 'Demo Store',
    email: 'demo@example.com',
  });
}
