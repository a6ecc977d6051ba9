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

/**
 * SHA-256 of the bearer tokens seen lately (decision 0183): hashing was a tenth of a read's CPU,
 * and a merchant sends the same key again and again. A token is kept at most two minutes after
 * its last use, and at most 2 x 10,000 of them: a flood of made-up tokens only turns the
 * generations over, each new token costing what hashing always cost.
 */
export class RecentDigests {
  #current = new Map<string, string>();
  #previous = new Map<string, string>();
  readonly #now: () => number;
  #turnedAt: number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
    this.#turnedAt = now();
  }

  of(token: string): string {
    const now = this.#now();
    if (now - this.#turnedAt >= 60_000 || this.#current.size >= 10_000) {
      this.#previous = this.#current;
      this.#current = new Map();
      this.#turnedAt = now;
    }
    let digest = this.#current.get(token);
    if (digest === undefined) {
      digest = this.#previous.get(token) ?? sha256Hex(token);
      this.#current.set(token, digest);
    }
    return digest;
  }

  /** Whether `token` is still kept (its retention is tested). */
  holds(token: string): boolean {
    return this.#current.has(token) || this.#previous.has(token);
  }
}

const recentDigests = new RecentDigests();
const digests = new WeakMap<FastifyRequest, string>();

/** SHA-256 of the request's bearer token, looked up once per request (the rate limit and the key lookup both need it). */
export function bearerDigest(request: FastifyRequest, token: string): string {
  let digest = digests.get(request);
  if (digest === undefined) {
    digest = recentDigests.of(token);
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
