import { randomBytes } from 'node:crypto';
import type { Clock } from '../../clock.ts';
import { HOUR, MINUTE } from '../../clock.ts';
import { sha256Hex } from '../../ids.ts';
import type { Account, AccountStore } from '../accounts.ts';
import type { Mode } from '../intents.ts';
import type { WindowCounters } from '../window-counters.ts';
import { decoyHash, PASSWORD_MAX_LENGTH, verifyPassword } from './passwords.ts';
import { reserveSignIn } from './sign-in-limits.ts';

export const SESSION_IDLE_MS = 2 * HOUR;
export const SESSION_ABSOLUTE_MS = 12 * HOUR;
/** last_seen_at is written at most this often: a page view is not a write. */
const TOUCH_EVERY_MS = MINUTE;

export { SIGN_IN_MAX_FAILURES, SIGN_IN_WINDOW_MS } from './sign-in-limits.ts';

export interface Session {
  digest: string;
  accountId: string;
  csrfToken: string;
  mode: Mode;
  createdAt: number;
  lastSeenAt: number;
}

export interface SessionStore {
  /** Accounts with this email (any case) that have a password, with their hashes. */
  passwordsByEmail(email: string): Promise<{ accountId: string; hash: string }[]>;
  insertSession(session: Session): Promise<void>;
  findSession(digest: string): Promise<Session | undefined>;
  updateSession(digest: string, changes: { lastSeenAt?: number; mode?: Mode }): Promise<void>;
  deleteSession(digest: string): Promise<void>;
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
 * so every process sees them.
 */
export async function signIn(
  stores: { sessions: SessionStore; counters: WindowCounters },
  clock: Clock,
  input: { email: string; password: string; clientIp: string },
): Promise<SignInResult> {
  const store = stores.sessions;
  const email = input.email.trim().toLowerCase();
  const now = clock.now();
  const reserved = await reserveSignIn(stores.counters, email, input.clientIp, now);
  if (!reserved.ok) return { ok: false, reason: 'rate_limited', retryAfterMs: reserved.retryAfterMs };
  let accountId: string | undefined;
  try {
    // No password is longer than the maximum: refuse it without paying scrypt for it.
    const candidates = input.password.length > PASSWORD_MAX_LENGTH ? [] : await store.passwordsByEmail(email);
    for (const candidate of candidates) {
      if (await verifyPassword(input.password, candidate.hash)) accountId ??= candidate.accountId;
    }
    if (candidates.length === 0) await verifyPassword(input.password.slice(0, PASSWORD_MAX_LENGTH), await decoyHash());
  } catch (error) {
    // Not checked (the hashing pool was full, the database failed): not a failure.
    await reserved.reservation.release();
    throw error;
  }
  if (!accountId) return { ok: false, reason: 'invalid' };
  await reserved.reservation.release();
  const token = newToken();
  const session: Session = {
    digest: sha256Hex(token),
    accountId,
    csrfToken: newToken(),
    mode: 'sandbox',
    createdAt: now,
    lastSeenAt: now,
  };
  await store.insertSession(session);
  return { ok: true, token, session };
}

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
export async function signOut(store: SessionStore, session: Session): Promise<void> {
  await store.deleteSession(session.digest);
}

/** The sandbox / live switch: every page of this session shows that mode's data. */
export async function switchMode(store: SessionStore, session: Session, mode: Mode): Promise<void> {
  await store.updateSession(session.digest, { mode });
}
