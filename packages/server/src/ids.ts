import { hash, randomBytes } from 'node:crypto';

/** Every random identifier and credential comes from this module. */

declare const brand: unique symbol;
type Brand<T, B extends string> = T & { readonly [brand]: B };

export type AccountId = Brand<string, 'AccountId'>;
export type IntentId = Brand<string, 'IntentId'>;
export type TransactionId = Brand<string, 'TransactionId'>;

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * Cryptographic random bytes, drawn from a 4 KB pool refilled by randomBytes: one
 * system call per few hundred ids instead of one per id (every request makes several).
 * Slices handed out are never reused; a refill allocates a new pool.
 */
const POOL_SIZE = 4096;
let pool = Buffer.alloc(0);
let offset = 0;
function randomChunk(length: number): Buffer {
  if (offset + length > pool.length) {
    pool = randomBytes(Math.max(POOL_SIZE, length));
    offset = 0;
  }
  const chunk = pool.subarray(offset, offset + length);
  offset += length;
  return chunk;
}

/** Uniform base62 string: bytes >= 248 are rejected so that every symbol is equally likely. */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomChunk(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

/**
 * 24 lowercase hex: 6 bytes of Unix milliseconds, then 6 random bytes. Ids made one after the
 * other sort together, so a batch of inserts touches the end of each index keyed by them (the
 * intent's own, its events' `object_id` index) instead of a random page per row: with whole
 * seconds in front, every group commit wrote and later checkpointed a few dozen scattered pages
 * (decision 0185). 48 random bits within one millisecond keep ids distinct and unguessable
 * enough for identifiers that are not credentials.
 */
function timeOrderedHex(nowMs: number): string {
  const head = Buffer.alloc(6);
  head.writeUIntBE(Math.floor(nowMs), 0, 6);
  return head.toString('hex') + randomChunk(6).toString('hex');
}

export const newIntentId = (nowMs: number) => timeOrderedHex(nowMs) as IntentId;

/** Unix milliseconds in 7 base62 digits (fixed width, so they sort as numbers until 2081). */
const TIME_DIGITS = 7;

/**
 * `length` base62 characters: the time in milliseconds, then randomness. Ids made one after the
 * other sort together, so inserting them touches the end of an index instead of a random page
 * per row (the events table takes one per write).
 */
export function timeOrderedBase62(nowMs: number, length: number): string {
  let time = '';
  for (let rest = Math.floor(nowMs); time.length < TIME_DIGITS; rest = Math.floor(rest / 62)) {
    time = BASE62[rest % 62] + time;
  }
  return time + randomBase62(length - TIME_DIGITS);
}
export const newTransactionId = (nowMs: number) => timeOrderedHex(nowMs) as TransactionId;
export const newAccountId = () => `acct_${randomBase62(16)}` as AccountId;
/** 24 base62 symbols carry about 142 bits, above the 128 the design asks for. */
export const newClientSecret = (id: IntentId) => `pi_${id}_secret_${randomBase62(24)}`;
export const newSecretKey = () => `sk_${randomBase62(32)}`;
export const newClientKey = () => `pk_${randomBase62(24)}`;
export const newRequestId = () => `req_${randomBase62(16)}`;
/** Names one running process among those that share rate-limit counters. */
export const newProcessId = () => `proc_${randomBase62(16)}`;

export const INTENT_ID = /^[0-9a-f]{24}$/;
export { CLIENT_SECRET } from '@obolus/js/protocol';

export function sha256Hex(value: string): string {
  return hash('sha256', value, 'hex');
}
/** UUIDv7 (RFC 9562): 48 bits of Unix milliseconds, then version, variant and randomness. */
export function uuidv7(nowMs: number): string {
  const bytes = Buffer.from(randomChunk(16));
  bytes.writeUIntBE(nowMs, 0, 6);
  bytes[6] = ((bytes[6] as number) & 0x0f) | 0x70;
  bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
