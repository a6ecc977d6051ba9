import { randomBytes } from 'node:crypto';
import type { Clock } from '../../clock.ts';
import { HOUR, MINUTE } from '../../clock.ts';
import { PasswordHashingBusy } from '../../crypto/password-hash-pool.ts';
import { type AccountId, sha256Hex } from '../../ids.ts';
import type { Account, AccountStore } from '../accounts.ts';
import { type AuditEvent, type AuditStore, actorOfSession, auditEvent } from '../audit.ts';
import type { Mode } from '../intents.ts';
import type { WindowCounters } from '../window-counters.ts';
import { decoyHash, hashPassword, needsRehash, PASSWORD_MAX_LENGTH, verifyPassword } from './passwords.ts';
import { reserveSignIn } from './sign-in-limits.ts';

export const SESSION_IDLE_MS = 2 * HOUR;
export const SESSION_ABSOLUTE_MS = 12 * HOUR;
/** last_seen_at is written at most this often: a page view is not a write. */
const TOUCH_EVERY_MS = MINUTE;

export { SIGN_IN_MAX_FAILURES, SIGN_IN_WINDOW_MS } from './sign-in-limits.ts';

export interface Session {
  digest: string;
  accountId: AccountId;
  csrfToken: string;
  mode: Mode;
  createdAt: number;
  lastSeenAt: number;
  /** When this session last gave the password: at sign-in, or confirming it for a sensitive action. */
  passwordAt: number;
}

/**
 * Sensitive dashboard actions (a key roll, a signing-secret roll, a new webhook endpoint, an
 * allowed-origin change) need the password given within this long (decision 0204).
 */
export const PASSWORD_FRESH_MS = 10 * MINUTE;

export interface SessionStore {
  /** Accounts with this email (any case) that have a password, with their hashes. */
  passwordsByEmail(email: string): Promise<{ accountId: AccountId; hash: string }[]>;
  passwordOf(accountId: AccountId): Promise<string | undefined>;
  upgradePassword(accountId: AccountId, oldHash: string, newHash: string): Promise<void>;
  insertSessionAudited(session: Session, audit: AuditEvent): Promise<void>;
  findSession(digest: string): Promise<Session | undefined>;
  updateSession(digest: string, changes: { lastSeenAt?: number; mode?: Mode; passwordAt?: number }): Promise<void>;
  deleteSession(digest: string): Promise<void>;
  deleteSessionAudited(digest: string, audit: AuditEvent): Promise<void>;
  /** Every session of the account but `keep`; how many ended. */
  endSessions(accountId: AccountId, audit: AuditEvent, keep?: string): Promise<number>;
}

export interface SignInStores {
  sessions: SessionStore;
  counters: WindowCounters;
  audit: AuditStore;
}

export type SignInResult =
  | { ok: true; token: string; session: Session }
  | { ok: false; reason: 'invalid' }
  | { ok: false; reason: 'rate_limited'; retryAfterMs: number };

const newToken = () => randomBytes(32).toString('base64url');

/**
 * Email + password to a new session. The attempt first reserves a failure in its windows
 * (per email and client network, per network, per email: sign-in-limits.ts), atomically, so
 * racing guesses cannot all be checked; a full window answers `rate_limited` before the
 * password is checked; a success gives the reservation back. Counts live in the database,
 * so every process sees them. Each outcome is in the audit trail.
 */
export async function signIn(
  stores: SignInStores,
  clock: Clock,
  input: { email: string; password: string; clientIp: string },
): Promise<SignInResult> {
  const store = stores.sessions;
  const email = input.email.trim().toLowerCase();
  const now = clock.now();
  const reserved = await reserveSignIn(stores.counters, email, input.clientIp, now);
  if (!reserved.ok) return { ok: false, reason: 'rate_limited', retryAfterMs: reserved.retryAfterMs };
  let accountId: AccountId | undefined;
  let matched: string | undefined;
  let candidates: { accountId: AccountId; hash: string }[] = [];
  try {
    // No password is longer than the maximum: refuse it without paying scrypt for it.
    candidates = input.password.length > PASSWORD_MAX_LENGTH ? [] : await store.passwordsByEmail(email);
    for (const candidate of candidates) {
      if ((await verifyPassword(input.password, candidate.hash)) && !accountId) {
        accountId = candidate.accountId;
        matched = candidate.hash;
      }
    }
    if (candidates.length === 0) await verifyPassword(input.password.slice(0, PASSWORD_MAX_LENGTH), await decoyHash());
  } catch (error) {
    // Not checked (the hashing pool was full, the database failed): not a failure.
    await reserved.reservation.release();
    throw error;
  }
  if (!accountId) {
    const owners = candidates.length > 0 ? candidates : [{ accountId: null }];
    for (const owner of owners) {
      const base = { accountId: owner.accountId, actor: 'anonymous', clientIp: input.clientIp } as const;
      await stores.audit.record(auditEvent(now, { ...base, action: 'dashboard.sign_in_failed', outcome: 'failure' }));
      // The account is told when its email is locked (issue 25 item 10).
      if (reserved.reservation.locksEmail && owner.accountId) {
        await stores.audit.record(auditEvent(now, { ...base, action: 'dashboard.locked', outcome: 'refused' }));
      }
    }
    return { ok: false, reason: 'invalid' };
  }
  await reserved.reservation.release();
  if (matched && needsRehash(matched)) await rehash(store, accountId, matched, input.password);
  const token = newToken();
  const session: Session = {
    digest: sha256Hex(token),
    accountId,
    csrfToken: newToken(),
    mode: 'sandbox',
    createdAt: now,
    lastSeenAt: now,
    passwordAt: now,
  };
  await store.insertSessionAudited(
    session,
    auditEvent(now, {
      accountId,
      action: 'dashboard.sign_in',
      actor: actorOfSession(session.digest),
      clientIp: input.clientIp,
    }),
  );
  return { ok: true, token, session };
}

export type PasswordCheck =
  | { ok: true }
  | { ok: false; reason: 'invalid' }
  | { ok: false; reason: 'rate_limited'; retryAfterMs: number };

/**
 * A signed-in merchant gives the password again before a sensitive action: counted as a
 * sign-in attempt (the same reservations), audited; when right, the session is fresh again
 * for PASSWORD_FRESH_MS.
 */
export async function confirmPassword(
  stores: SignInStores,
  clock: Clock,
  input: { session: Session; email: string; password: string; clientIp: string },
): Promise<PasswordCheck> {
  const now = clock.now();
  const { session } = input;
  const reserved = await reserveSignIn(stores.counters, input.email.trim().toLowerCase(), input.clientIp, now);
  if (!reserved.ok) return { ok: false, reason: 'rate_limited', retryAfterMs: reserved.retryAfterMs };
  let right = false;
  try {
    const hash = await stores.sessions.passwordOf(session.accountId);
    right =
      input.password.length <= PASSWORD_MAX_LENGTH &&
      hash !== undefined &&
      (await verifyPassword(input.password, hash));
  } catch (error) {
    await reserved.reservation.release();
    throw error;
  }
  const base = { accountId: session.accountId, actor: actorOfSession(session.digest), clientIp: input.clientIp };
  await stores.audit.record(
    auditEvent(now, { ...base, action: 'dashboard.password_confirmed', outcome: right ? 'success' : 'failure' }),
  );
  if (!right) return { ok: false, reason: 'invalid' };
  await reserved.reservation.release();
  await stores.sessions.updateSession(session.digest, { passwordAt: now });
  return { ok: true };
}

/** An older hash upgraded to today's parameters; a full hashing pool leaves it for the next sign-in. */
async function rehash(store: SessionStore, accountId: AccountId, old: string, password: string): Promise<void> {
  try {
    await store.upgradePassword(accountId, old, await hashPassword(password));
  } catch (error) {
    if (!(error instanceof PasswordHashingBusy)) throw error;
  }
}

/** Whether this session gave its password recently enough for a sensitive action. */
export const passwordIsFresh = (session: Session, now: number) => now - session.passwordAt < PASSWORD_FRESH_MS;

/** The session of a cookie's token and its account, or null when it is unknown, ended or timed out. */
export async function resumeSession(
  stores: { sessions: SessionStore; accounts: Pick<AccountStore, 'find'> },
  clock: Clock,
  token: string,
): Promise<{ session: Session; account: Account } | null> {
  const digest = sha256Hex(token);
  const session = await stores.sessions.findSession(digest);
  if (!session) return null;
  const now = clock.now();
  if (now - session.lastSeenAt >= SESSION_IDLE_MS || now - session.createdAt >= SESSION_ABSOLUTE_MS) {
    await stores.sessions.deleteSession(digest);
    return null;
  }
  const account = await stores.accounts.find(session.accountId);
  if (!account) return null;
  if (now - session.lastSeenAt >= TOUCH_EVERY_MS) {
    await stores.sessions.updateSession(digest, { lastSeenAt: now });
  }
  return { session, account };
}

/** Ends the session in every process: the row is gone, so the cookie is refused everywhere. */
export async function signOut(store: SessionStore, clock: Clock, session: Session, clientIp: string): Promise<void> {
  const now = clock.now();
  await store.deleteSessionAudited(
    session.digest,
    auditEvent(now, {
      accountId: session.accountId,
      action: 'dashboard.sign_out',
      actor: actorOfSession(session.digest),
      clientIp,
    }),
  );
}

/**
 * Ends every session of an account (the dashboard's "Sign out everywhere", or
 * `obolus accounts end-sessions`), in every process, with its audit event.
 */
export async function endAllSessions(
  store: SessionStore,
  clock: Clock,
  input: { accountId: AccountId; actor: string; clientIp?: string | null },
): Promise<number> {
  return store.endSessions(
    input.accountId,
    auditEvent(clock.now(), {
      accountId: input.accountId,
      action: 'sessions.ended',
      actor: input.actor,
      clientIp: input.clientIp ?? null,
    }),
  );
}

/** The sandbox / live switch: every page of this session shows that mode's data. */
export async function switchMode(store: SessionStore, session: Session, mode: Mode): Promise<void> {
  await store.updateSession(session.digest, { mode });
}
