import { HOUR, MINUTE } from '../clock.ts';
import type { AccountId } from '../ids.ts';

/** Keys are kept for 24 hours (decision 0004); after that the same key starts afresh. */
export const IDEMPOTENCY_RETENTION_MS = 24 * HOUR;
/**
 * A request that holds a key this long without finishing is taken to have died with its
 * process; the next request with the key may take it over.
 */
export const IDEMPOTENCY_LOCK_MS = MINUTE;
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;

/**
 * The key a write is made under. `recovered`: the key was taken over from a request that
 * died holding it, which may have committed its write before dying: the write looks for
 * what that request made under the key before making anything (decision 0170).
 */
export interface IdempotentWrite {
  key: string;
  recovered: boolean;
}

export type IdempotencyClaim =
  | { kind: 'claimed'; recovered?: boolean }
  | { kind: 'in_flight' }
  | { kind: 'mismatch' }
  | { kind: 'replay'; statusCode: number; body: string };

export interface IdempotencyStore {
  /**
   * Atomically claims `key` for a request with `requestHash`, or says why not: another
   * request holds it, it was used with another request, or its first response is stored.
   */
  claim(accountId: AccountId, key: string, requestHash: string, now: number): Promise<IdempotencyClaim>;
  complete(accountId: AccountId, key: string, statusCode: number, body: string): Promise<void>;
  release(accountId: AccountId, key: string): Promise<void>;
  pruneBefore(cutoff: number): Promise<number>;
}
