import type { AccountId } from '../ids.ts';
import type { Account } from './accounts.ts';
import { type AuditBy, type AuditEvent, auditEvent } from './audit.ts';
import { ApiError } from './errors.ts';

/**
 * An account's allowed origins are the pages that may frame its widget and the places its
 * hosted checkout may send a shopper back to. Origins are compared in the canonical form
 * the URL standard gives them (`https://shop.example`, default port dropped).
 */

/** The canonical origin of an http(s) URL or origin text, or null when it is neither. */
export function originOf(text: string): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  return url.origin;
}

/** True when `text` names an origin: scheme, host and optional port, with no path, query or user. */
export function isOrigin(text: string): boolean {
  if (originOf(text) === null) return false;
  const url = new URL(text);
  const bare = url.pathname === '/' && !/^[a-z]+:\/\/[^/]+\/./i.test(text);
  return bare && url.search === '' && url.hash === '' && url.username === '' && url.password === '';
}

export function allowedOrigins(account: Account): string[] {
  return account.allowedOrigins.map(originOf).filter((o): o is string => o !== null);
}

export function isAllowedOrigin(account: Account, origin: string): boolean {
  const wanted = originOf(origin);
  return wanted !== null && allowedOrigins(account).includes(wanted);
}

export interface AllowedOriginsStore {
  /** Replaces the account's list; false when there is no such account. `audit` is written with it. */
  set(accountId: AccountId, origins: string[], audit?: AuditEvent): Promise<boolean>;
  /** Compare-and-set: replaces the list only while it is still `expected`; false otherwise. `audit` is written with it. */
  replace(accountId: AccountId, expected: readonly string[], origins: string[], audit?: AuditEvent): Promise<boolean>;
}

export const MAX_ALLOWED_ORIGINS = 20;

/** Replaces an account's allowed origins (an empty list lets any page frame its widget). */
export async function setAllowedOrigins(
  store: AllowedOriginsStore,
  accountId: AccountId,
  origins: string[],
  /** Who sets them, and when: the `allowed_origins.changed` audit event commits with the list. */
  audited?: { by: AuditBy; now: number },
) {
  const unique = canonicalOrigins(origins);
  const audit = audited && originsAudit(accountId, audited, { origins: unique.join(' ') || '(any)' });
  if (!(await store.set(accountId, unique, audit))) {
    throw new ApiError('resource_missing', `No such account: ${accountId}`, 'id');
  }
  return unique;
}

const EDIT_ATTEMPTS = 5;

/**
 * Adds or removes origins against the list as it is now (the dashboard's Add / Remove):
 * a compare-and-set, read again when another change landed in between, so two origins
 * added at once from two tabs or processes are both kept. Null when it kept losing.
 */
export async function editAllowedOrigins(
  stores: { origins: AllowedOriginsStore; accounts: { find(id: string): Promise<Account | undefined> } },
  accountId: AccountId,
  edit: (current: readonly string[]) => string[],
  /** Who edits, when, and what (`added`, `removed`): the audit event commits with the list. */
  audited?: { by: AuditBy; now: number; detail: Record<string, string> },
): Promise<string[] | null> {
  for (let attempt = 0; attempt < EDIT_ATTEMPTS; attempt++) {
    const account = await stores.accounts.find(accountId);
    if (!account) throw new ApiError('resource_missing', `No such account: ${accountId}`, 'id');
    const next = canonicalOrigins(edit(account.allowedOrigins));
    const audit = audited && originsAudit(accountId, audited, audited.detail);
    if (await stores.origins.replace(accountId, account.allowedOrigins, next, audit)) return next;
  }
  return null;
}

function canonicalOrigins(origins: string[]): string[] {
  if (origins.length > MAX_ALLOWED_ORIGINS) {
    throw new ApiError('parameter_invalid', `At most ${MAX_ALLOWED_ORIGINS} allowed origins.`, 'origins');
  }
  const canonical = origins.map((text) => {
    if (!isOrigin(text)) {
      throw new ApiError('parameter_invalid', `'${text}' is not an origin like https://shop.example.`, 'origins');
    }
    return originOf(text) as string;
  });
  return [...new Set(canonical)];
}

function originsAudit(accountId: AccountId, audited: { by: AuditBy; now: number }, detail: Record<string, string>) {
  return auditEvent(audited.now, {
    accountId,
    action: 'allowed_origins.changed',
    actor: audited.by.actor,
    clientIp: audited.by.clientIp ?? null,
    detail,
  });
}
