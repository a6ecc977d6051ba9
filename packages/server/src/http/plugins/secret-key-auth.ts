import type { FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import type { Clock } from '../../clock.ts';
import { type Account, type AccountStore, authenticateSecretKey } from '../../domain/accounts.ts';
import { ApiError } from '../../domain/errors.ts';
import { sha256Hex } from '../../ids.ts';

declare module 'fastify' {
  interface FastifyRequest {
    account: Account | null;
  }
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** The bearer token of a request, if its Authorization header has one. */
export const bearerToken = (request: FastifyRequest): string | undefined =>
  BEARER.exec(request.headers.authorization ?? '')?.[1];

const digests = new WeakMap<FastifyRequest, string>();

/** SHA-256 of the request's bearer token, computed once per request (the rate limit and the key lookup both need it). */
export function bearerDigest(request: FastifyRequest, token: string): string {
  let digest = digests.get(request);
  if (digest === undefined) {
    digest = sha256Hex(token);
    digests.set(request, digest);
  }
  return digest;
}

/** onRequest hook: runs before the body is read, so unauthenticated requests cost little. */
export function secretKeyAuth(store: Pick<AccountStore, 'find' | 'findKey'>, clock: Clock): onRequestAsyncHookHandler {
  return async (request) => {
    const header = request.headers.authorization;
    if (!header) {
      throw new ApiError('api_key_missing', 'No API key provided. Send it as Authorization: Bearer sk_….');
    }
    const token = bearerToken(request);
    if (!token) throw new ApiError('api_key_invalid', 'The Authorization header must be: Bearer sk_….');
    const account = await authenticateSecretKey(store, clock, token, () => bearerDigest(request, token));
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
