import type { Clock } from '../clock.ts';
import { SECOND } from '../clock.ts';
import type { Account, AccountStatus, AccountStore, RememberedKeys, SecretKeyRecord } from '../domain/accounts.ts';
import type { AuditEvent } from '../domain/audit.ts';
import type { AccountId } from '../ids.ts';

/**
 * How stale a remembered secret key or account may be in a process that did not make the
 * change: a key roll (or a grace period cut short) and a deactivation reach every other
 * process within it (decision 0180). The process that makes the change forgets at once
 * (`replaceSecretKey` and `setStatus` below).
 */
export const ACCOUNT_CACHE_TTL_MS = 1 * SECOND;

interface Entry<T> {
  value: T;
  until: number;
}

/**
 * Keeps the secret keys that authenticated recently and their accounts, so that an API call
 * costs no lookup at all while its key is remembered. Unknown keys are not remembered: a key
 * made a moment ago works at once, and guessing keys still costs the guesser a lookup each.
 */
export class AccountCache
  implements Pick<AccountStore, 'find' | 'findKey' | 'replaceSecretKey' | 'setStatus'>, RememberedKeys
{
  readonly #store: AccountStore;
  readonly #clock: Clock;
  readonly #keys = new Map<string, Entry<SecretKeyRecord>>();
  readonly #accounts = new Map<AccountId, Entry<Account>>();

  constructor(store: AccountStore, clock: Clock) {
    this.#store = store;
    this.#clock = clock;
  }

  findKey(digest: string): Promise<SecretKeyRecord | undefined> {
    return this.#cached(this.#keys, digest, () => this.#store.findKey(digest));
  }

  find(id: AccountId): Promise<Account | undefined> {
    return this.#cached(this.#accounts, id, () => this.#store.find(id));
  }

  remembered(digest: string): { key: SecretKeyRecord; account: Account } | undefined {
    const now = this.#clock.now();
    const key = this.#keys.get(digest);
    if (key === undefined || key.until <= now) return undefined;
    const account = this.#accounts.get(key.value.accountId);
    if (account === undefined || account.until <= now) return undefined;
    return { key: key.value, account: account.value };
  }

  /** Changes the status through the store, then forgets the account here: refused on its next request. */
  async setStatus(id: AccountId, status: AccountStatus): Promise<boolean> {
    const changed = await this.#store.setStatus(id, status);
    this.#accounts.delete(id);
    return changed;
  }

  /** Rolls through the store, then forgets the account's keys here: the old key fails on the next request. */
  async replaceSecretKey(
    accountId: AccountId,
    key: SecretKeyRecord,
    graceUntil: number,
    audit?: AuditEvent,
  ): Promise<void> {
    await this.#store.replaceSecretKey(accountId, key, graceUntil, audit);
    for (const [digest, entry] of this.#keys) {
      if (entry.value.accountId === accountId) this.#keys.delete(digest);
    }
  }

  async #cached<K extends string, T>(
    map: Map<K, Entry<T>>,
    id: K,
    load: () => Promise<T | undefined>,
  ): Promise<T | undefined> {
    const now = this.#clock.now();
    const hit = map.get(id);
    if (hit && hit.until > now) return hit.value;
    const value = await load();
    if (value === undefined) map.delete(id);
    else {
      if (map.size >= 10_000) map.clear();
      map.set(id, { value, until: now + ACCOUNT_CACHE_TTL_MS });
    }
    return value;
  }
}
