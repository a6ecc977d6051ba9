import type { FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import type { Clock } from '../../clock.ts';
import { type Account, type AccountStore, authenticateSecretKey } from '../../domain/accounts.ts';
import { ApiError } from '../../domain/errors.ts';

declare module 'fastify' {
  interface FastifyRequest {
    account: Account | null;
  }
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** onRequest hook: runs before the body is read, so unauthenticated requests cost little. */
export function secretKeyAuth(store: Pick<AccountStore, 'find' | 'findKey'>, clock: Clock): onRequestAsyncHookHandler {
  return async (request) => {
    const header = request.headers.authorization;
    if (!header) {
      throw new ApiError('api_key_missing', 'No API key provided. Send it as Authorization: Bearer sk_….');
    }
    const token = BEARER.exec(header)?.[1];
    if (!token) throw new ApiError('api_key_invalid', 'The Authorization header must be: Bearer sk_….');
    const account = await authenticateSecretKey(store, clock, token);
    if (account.status !== 'active') {
      throw new ApiError('account_inactive', 'This account is not active.');
    }
    request.account = account;
  };
}

export function accountOf(request: FastifyRequest): Account {
  if (!request.account) throw new Error('route registered without secretKeyAuth');
  return request.account;
}
