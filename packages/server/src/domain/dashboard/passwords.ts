import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../../clock.ts';
import { passwordHashPool } from '../../crypto/password-hash-pool.ts';
import type { AccountId } from '../../ids.ts';
import { type AuditEvent, auditEvent, CLI_ACTOR } from '../audit.ts';
import { ApiError } from '../errors.ts';

/** Shorter is refused; longer than the maximum is refused too (scrypt's cost grows with it). */
export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 1024;

/**
 * OWASP's scrypt minimums trade memory for passes: N=2^17, r=8, p=1 (128 MiB a hash), …,
 * N=2^15, r=8, p=3 (32 MiB). The last: memory stays small, three passes (issue 25 item 9).
 * Hashes carry their parameters: older ones still verify and are rehashed at the next sign-in.
 */
export const PASSWORD_PARAMS = { N: 2 ** 15, r: 8, p: 3 } as const;
const PARAMS = PASSWORD_PARAMS;
const KEY_BYTES = 32;

/** On the password-hashing threads, never libuv's pool (decision 0202); PasswordHashingBusy when full. */
function derive(password: string, salt: Buffer, params: { N: number; r: number; p: number }): Promise<Buffer> {
  return passwordHashPool().derive(password.normalize('NFC'), salt, KEY_BYTES, params);
}

/** `scrypt$N$r$p$salt$hash`, base64: the parameters travel with the hash, so they can be raised later. */
export async function hashPassword(
  password: string,
  params: { N: number; r: number; p: number } = PARAMS,
): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, params);
  return ['scrypt', params.N, params.r, params.p, salt.toString('base64'), key.toString('base64')].join('$');
}

/** A stored hash made with other parameters than today's: rehash it when its password is next given. */
export function needsRehash(stored: string): boolean {
  const [scheme, n, r, p] = stored.split('$');
  return scheme !== 'scrypt' || Number(n) !== PARAMS.N || Number(r) !== PARAMS.r || Number(p) !== PARAMS.p;
}

/** Constant-time comparison of the derived key; a malformed stored hash verifies nothing. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const key = await derive(password, Buffer.from(salt, 'base64'), { N: Number(n), r: Number(r), p: Number(p) });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/** A hash no password matches: compared against when the email is unknown, so timing says nothing. */
let decoy: Promise<string> | undefined;
export const decoyHash = () => {
  decoy ??= hashPassword(randomBytes(24).toString('base64')).catch((error: unknown) => {
    decoy = undefined; // refused (the pool was full): the next sign-in makes it
    throw error;
  });
  return decoy;
};

export interface PasswordStore {
  /** Replaces `oldHash` by `newHash` only if it is still the stored one (a rehash, not a reset: sessions stay). */
  upgradePassword(accountId: AccountId, oldHash: string, newHash: string): Promise<void>;
  /** False when there is no such account. Ends the account's sessions and writes `audit`, in one transaction. */
  setPassword(accountId: AccountId, hash: string, now: number, audit?: AuditEvent[]): Promise<boolean>;
}

export function checkPassword(password: string): void {
  if (password.length < PASSWORD_MIN_LENGTH) {
    throw new ApiError(
      'parameter_invalid',
      `The password must be at least ${PASSWORD_MIN_LENGTH} characters.`,
      'password',
    );
  }
  if (password.length > PASSWORD_MAX_LENGTH) {
    throw new ApiError(
      'parameter_invalid',
      `The password must be at most ${PASSWORD_MAX_LENGTH} characters.`,
      'password',
    );
  }
}

/**
 * Sets (or replaces) the dashboard password of an account and ends every session it has
 * (issue 25 item 5: a reset must lock out whoever knew the old one), with the audit events.
 */
export async function setDashboardPassword(
  store: PasswordStore,
  clock: Clock,
  accountId: AccountId,
  password: string,
  actor = CLI_ACTOR,
): Promise<void> {
  checkPassword(password);
  const hash = await hashPassword(password);
  const now = clock.now();
  const audit = [
    auditEvent(now, { accountId, action: 'password.set', actor }),
    auditEvent(now, { accountId, action: 'sessions.ended', actor }),
  ];
  if (!(await store.setPassword(accountId, hash, now, audit))) {
    throw new ApiError('resource_missing', `No such account: ${accountId}`, 'id');
  }
}
