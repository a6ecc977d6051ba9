import { timingSafeEqual } from 'node:crypto';
import type { Clock } from '../clock.ts';
import { HOUR } from '../clock.ts';
import { type AccountId, newAccountId, newClientKey, newSecretKey, sha256Hex } from '../ids.ts';
import { type AuditBy, type AuditEvent, auditEvent } from './audit.ts';
import { ApiError } from './errors.ts';

export type AccountStatus = 'active' | 'inactive';

export interface Pricing {
  /** Percentage part in basis points: 290 is 2.9 %. */
  bps: number;
  /** Fixed part in USD cents. */
  fixedMinor: number;
}

export const DEFAULT_PRICING: Pricing = { bps: 290, fixedMinor: 30 };

export interface Account {
  id: AccountId;
  name: string;
  email: string;
  status: AccountStatus;
  pricing: Pricing;
  allowedOrigins: string[];
  clientKey: string;
  createdAt: number;
}

export interface SecretKeyRecord {
  digest: string;
  accountId: AccountId;
  last4: string;
  createdAt: number;
  expiresAt: number | null;
}

/** What the accounts use cases need from the store. */
export interface AccountStore {
  insert(account: Account, key: SecretKeyRecord): Promise<void>;
  find(id: AccountId): Promise<Account | undefined>;
  list(): Promise<Account[]>;
  count(): Promise<number>;
  setStatus(id: AccountId, status: AccountStatus): Promise<boolean>;
  findKey(digest: string): Promise<SecretKeyRecord | undefined>;
  /** Ends the current keys at `graceUntil` and adds `key`, in one transaction. */
  /** With `audit`, that event is written in the same database transaction as the key. */
  replaceSecretKey(accountId: AccountId, key: SecretKeyRecord, graceUntil: number, audit?: AuditEvent): Promise<void>;
}

export interface CreateAccountIn {
  name: string;
  email: string;
  pricing?: Pricing;
  allowedOrigins?: string[];
}

export interface AccountWithKeys {
  account: Account;
  /** Shown once: only its digest is stored. */
  secretKey: string;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export async function createAccount(
  store: AccountStore,
  clock: Clock,
  input: CreateAccountIn,
): Promise<AccountWithKeys> {
  const name = input.name.trim();
  if (name.length < 1 || name.length > 100)
    throw new ApiError('parameter_invalid', 'name must be 1 to 100 characters', 'name');
  if (!EMAIL.test(input.email) || input.email.length > 254) {
    throw new ApiError('parameter_invalid', 'email must be an email address', 'email');
  }
  const now = clock.now();
  const account: Account = {
    id: newAccountId(),
    name,
    email: input.email,
    status: 'active',
    pricing: input.pricing ?? DEFAULT_PRICING,
    allowedOrigins: input.allowedOrigins ?? [],
    clientKey: newClientKey(),
    createdAt: now,
  };
  const secretKey = newSecretKey();
  await store.insert(account, keyRecord(account.id, secretKey, now));
  return { account, secretKey };
}

function keyRecord(accountId: AccountId, secretKey: string, now: number): SecretKeyRecord {
  return {
    digest: sha256Hex(secretKey),
    accountId,
    last4: secretKey.slice(-4),
    createdAt: now,
    expiresAt: null,
  };
}

/**
 * Issues a new secret key. The old ones stop working after `graceHours` (0: at once),
 * so a merchant can deploy the new key before the old one dies. With `by`, the roll's
 * `secret_key.rolled` audit event commits with the key or not at all.
 */
export async function rollSecretKey(
  store: Pick<AccountStore, 'find' | 'replaceSecretKey'>,
  clock: Clock,
  accountId: AccountId,
  graceHours: number,
  by?: AuditBy,
): Promise<{ account: Account; secretKey: string; previousKeysExpireAt: number }> {
  const account = await store.find(accountId);
  if (!account) throw new ApiError('resource_missing', `No such account: ${accountId}`, 'id');
  const now = clock.now();
  const secretKey = newSecretKey();
  const graceUntil = now + graceHours * HOUR;
  const audit =
    by &&
    auditEvent(now, {
      accountId: account.id,
      action: 'secret_key.rolled',
      actor: by.actor,
      clientIp: by.clientIp ?? null,
      detail: { new_key: `sk_…${secretKey.slice(-4)}`, grace_hours: graceHours },
    });
  await store.replaceSecretKey(account.id, keyRecord(account.id, secretKey, now), graceUntil, audit);
  return { account, secretKey, previousKeysExpireAt: graceUntil };
}

export async function setAccountStatus(
  store: Pick<AccountStore, 'setStatus'>,
  accountId: AccountId,
  status: AccountStatus,
): Promise<void> {
  if (!(await store.setStatus(accountId, status))) {
    throw new ApiError('resource_missing', `No such account: ${accountId}`, 'id');
  }
}

/** Whether a key still works at `now`: the current one, or one still in its grace period. */
const works = (key: SecretKeyRecord, now: number) => key.expiresAt === null || key.expiresAt > now;

/** The secret keys that still work, newest first: the current one and any in their grace period. */
export async function liveSecretKeys(
  store: { keysOf(accountId: AccountId): Promise<SecretKeyRecord[]> },
  clock: Clock,
  account: Account,
): Promise<SecretKeyRecord[]> {
  const now = clock.now();
  return (await store.keysOf(account.id)).filter((key) => works(key, now));
}

/** Keys a process remembers with their accounts (store/account-cache.ts): answered without a lookup. */
export interface RememberedKeys {
  /** The key with this digest and its account, while both are remembered and fresh. */
  remembered(digest: string): { key: SecretKeyRecord; account: Account } | undefined;
}

/**
 * `authenticateSecretKey`'s account, at once, when the key and its account are remembered;
 * undefined otherwise (ask `authenticateSecretKey`, which also explains a refusal). The digest
 * was found by exact match in memory, so it is not compared again.
 */
export function rememberedAccount(
  store: RememberedKeys,
  clock: Clock,
  token: string,
  digestOf: () => string,
): Account | undefined {
  if (!token.startsWith('sk_')) return undefined;
  const hit = store.remembered(digestOf());
  return hit && works(hit.key, clock.now()) ? hit.account : undefined;
}

/**
 * Resolves a bearer token to its account. The lookup is by SHA-256 digest, and the digest
 * found is compared again in constant time. Inactive accounts are returned: the caller
 * decides what an inactive account may still do.
 */
export async function authenticateSecretKey(
  store: Pick<AccountStore, 'find' | 'findKey'>,
  clock: Clock,
  token: string,
  digestOf: () => string = () => sha256Hex(token),
): Promise<Account> {
  if (token.startsWith('pk_')) {
    throw new ApiError(
      'secret_key_required',
      'This endpoint needs a secret key (sk_…); a client key (pk_…) was given.',
    );
  }
  const digest = digestOf();
  const key = token.startsWith('sk_') ? await store.findKey(digest) : undefined;
  const valid =
    key !== undefined &&
    timingSafeEqual(Buffer.from(key.digest, 'hex'), Buffer.from(digest, 'hex')) &&
    works(key, clock.now());
  const account = valid ? await store.find(key.accountId) : undefined;
  if (!account) throw new ApiError('api_key_invalid', 'Invalid API key provided.');
  return account;
}
