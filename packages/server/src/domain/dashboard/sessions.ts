import { randomBytes } from 'node:crypto';
import type { Clock } from '../../clock.ts';
import { HOUR, MINUTE } from '../../clock.ts';
import { sha256Hex } from '../../ids.ts';
import type { Account, AccountStore } from '../accounts.ts';
import type { Mode } from '../intents.ts';
import { decoyHash, PASSWORD_MAX_LENGTH, verifyPassword } from './passwords.ts';

export const SESSION_IDLE_MS = 2 * HOUR;
export const SESSION_ABSOLUTE_MS = 12 * HOUR;
/** last_seen_at is written at most this often: a page view is not a write. */
const TOUCH_EVERY_MS = MINUTE;

export const SIGN_IN_WINDOW_MS = 15 * MINUTE;
export const SIGN_IN_MAX_FAILURES = 10;

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
  /** Failures since `since` for this email and for this client address; also drops older ones. */
  countFailures(email: string, clientIp: string, since: number): Promise<{ email: number; clientIp: number }>;
  recordFailure(email: string, clientIp: string, at: number): Promise<void>;
}

export type SignInResult =
  | { ok: true; token: string; session: Session }
  | { ok: false; reason: 'invalid' }
  | { ok: false; reason: 'rate_limited'; retryAfterMs: number };

const newToken = () => randomBytes(32).toString('base64url');

/**
 * Email + password to a new session. Ten failures in 15 minutes for the email, or from the
 * client address, answer `rate_limited` before the password is even checked; the count lives
 * in the database, so every process sees it.
 */
export async function signIn(
  store: SessionStore,
  clock: Clock,
  input: { email: string; password: string; clientIp: string },
): Promise<SignInResult> {
  const email = input.email.trim().toLowerCase();
  const now = clock.now();
  const failures = await store.countFailures(email, input.clientIp, now - SIGN_IN_WINDOW_MS);
  if (failures.email >= SIGN_IN_MAX_FAILURES || failures.clientIp >= SIGN_IN_MAX_FAILURES) {
    return { ok: false, reason: 'rate_limited', retryAfterMs: SIGN_IN_WINDOW_MS };
  }
  // No password is longer than the maximum: refuse it without paying scrypt for it.
  const candidates = input.password.length > PASSWORD_MAX_LENGTH ? [] : await store.passwordsByEmail(email);
  let accountId: string | undefined;
  for (const candidate of candidates) {
    if (await verifyPassword(input.password, candidate.hash)) accountId ??= candidate.accountId;
  }
  if (candidates.length === 0) await verifyPassword(input.password.slice(0, PASSWORD_MAX_LENGTH), await decoyHash());
  if (!accountId) {
    await store.recordFailure(email, input.clientIp, now);
    return { ok: false, reason: 'invalid' };
  }
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
