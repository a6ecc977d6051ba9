import type { FastifyInstance, FastifyRequest, onRequestHookHandler } from 'fastify';
import type { Clock } from '../../clock.ts';
import {
  type Account,
  type AccountStore,
  authenticateSecretKey,
  type RememberedKeys,
  rememberedAccount,
} from '../../domain/accounts.ts';
import { ApiError } from '../../domain/errors.ts';
import { sha256Hex } from '../../ids.ts';

declare module 'fastify' {
  interface FastifyRequest {
    account: Account | null;
    /** SHA-256 of the request's bearer token, once something needed it (`bearerDigest`). */
    keyDigest: string | null;
  }
}

/** The request fields the API's key checks fill in; decorated once, on the root app. */
export function decorateForKeys(app: FastifyInstance): void {
  app.decorateRequest('account', null);
  app.decorateRequest('keyDigest', null);
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

/**
 * SHA-256 of the request's bearer token, worked out once per request (the rate limit and the
 * key lookup both need it) and kept on the request: a WeakMap by request cost more than the
 * digest (decision 0184).
 */
export function bearerDigest(request: FastifyRequest, token: string): string {
  request.keyDigest ??= recentDigests.of(token);
  return request.keyDigest;
}

/**
 * onRequest hook: runs before the body is read, so unauthenticated requests cost little. A key
 * this process remembers (AccountCache) is admitted without waiting: no promise per request.
 */
export function secretKeyAuth(
  store: Pick<AccountStore, 'find' | 'findKey'> & RememberedKeys,
  clock: Clock,
): onRequestHookHandler {
  return (request, _reply, done) => {
    const header = request.headers.authorization;
    if (!header) {
      return done(new ApiError('api_key_missing', 'No API key provided. Send it as Authorization: Bearer sk_….'));
    }
    const token = bearerToken(request);
    if (!token) return done(new ApiError('api_key_invalid', 'The Authorization header must be: Bearer sk_….'));
    const digest = () => bearerDigest(request, token);
    const remembered = rememberedAccount(store, clock, token, digest);
    if (remembered) return done(admit(request, remembered));
    authenticateSecretKey(store, clock, token, digest).then(
      (account) => done(admit(request, account)),
      (error: Error) => done(error),
    );
  };
}

function admit(request: FastifyRequest, account: Account): ApiError | undefined {
  if (account.status !== 'active') return new ApiError('account_inactive', 'This account is not active.');
  request.account = account;
  return undefined;
}

export function accountOf(request: FastifyRequest): Account {
  if (!request.account) throw new Error('route registered without secretKeyAuth');
  return request.account;
}
