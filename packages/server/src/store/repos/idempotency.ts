import type { Kysely } from 'kysely';
import {
  IDEMPOTENCY_LOCK_MS,
  IDEMPOTENCY_RETENTION_MS,
  type IdempotencyClaim,
  type IdempotencyStore,
} from '../../domain/idempotency.ts';
import type { AccountId } from '../../ids.ts';
import type { Database } from '../schema.ts';
import { TransactionPerWrite, type WriteRunner } from '../write-runner.ts';

export class IdempotencyRepository implements IdempotencyStore {
  readonly #db: Kysely<Database>;
  readonly #writes: WriteRunner;
  readonly #lockMs: number;
  /** `lockMs`: how long a claim is its holder's before another request may take it over. */
  constructor(db: Kysely<Database>, writes: WriteRunner = new TransactionPerWrite(db), lockMs = IDEMPOTENCY_LOCK_MS) {
    this.#db = db;
    this.#writes = writes;
    this.#lockMs = lockMs;
  }

  async claim(accountId: AccountId, key: string, requestHash: string, now: number): Promise<IdempotencyClaim> {
    // Two rounds at most: the second follows the removal of an expired row.
    for (let round = 0; round < 2; round++) {
      const inserted = await this.#writes.run((trx) =>
        trx
          .insertInto('idempotency_keys')
          .values({
            account_id: accountId,
            key,
            request_hash: requestHash,
            state: 'in_flight',
            status_code: null,
            response_body: null,
            created_at: now,
            locked_at: now,
          })
          .onConflict((oc) => oc.columns(['account_id', 'key']).doNothing())
          .executeTakeFirst(),
      );
      if ((inserted.numInsertedOrUpdatedRows ?? 0n) > 0n) return { kind: 'claimed' };
      const row = await this.#db
        .selectFrom('idempotency_keys')
        .selectAll()
        .where('account_id', '=', accountId)
        .where('key', '=', key)
        .executeTakeFirst();
      if (!row) continue;
      if (row.created_at <= now - IDEMPOTENCY_RETENTION_MS) {
        await this.#deleteIfCreatedAt(accountId, key, row.created_at);
        continue;
      }
      if (row.request_hash !== requestHash) return { kind: 'mismatch' };
      if (row.state === 'done')
        return { kind: 'replay', statusCode: row.status_code ?? 200, body: row.response_body ?? '' };
      if (row.locked_at > now - this.#lockMs) return { kind: 'in_flight' };
      // The holder is presumed dead: take the lock over, unless someone else just did.
      const taken = await this.#writes.run((trx) =>
        trx
          .updateTable('idempotency_keys')
          .set({ locked_at: now })
          .where('account_id', '=', accountId)
          .where('key', '=', key)
          .where('state', '=', 'in_flight')
          .where('locked_at', '=', row.locked_at)
          .executeTakeFirst(),
      );
      return taken.numUpdatedRows > 0n ? { kind: 'claimed', recovered: true } : { kind: 'in_flight' };
    }
    return { kind: 'in_flight' };
  }

  async #deleteIfCreatedAt(accountId: AccountId, key: string, createdAt: number): Promise<void> {
    await this.#db
      .deleteFrom('idempotency_keys')
      .where('account_id', '=', accountId)
      .where('key', '=', key)
      .where('created_at', '=', createdAt)
      .execute();
  }

  async complete(accountId: AccountId, key: string, statusCode: number, body: string): Promise<void> {
    await this.#writes.run((trx) =>
      trx
        .updateTable('idempotency_keys')
        .set({ state: 'done', status_code: statusCode, response_body: body })
        .where('account_id', '=', accountId)
        .where('key', '=', key)
        .execute(),
    );
  }

  async release(accountId: AccountId, key: string): Promise<void> {
    await this.#db
      .deleteFrom('idempotency_keys')
      .where('account_id', '=', accountId)
      .where('key', '=', key)
      .where('state', '=', 'in_flight')
      .execute();
  }

  async pruneBefore(cutoff: number): Promise<number> {
    const result = await this.#db.deleteFrom('idempotency_keys').where('created_at', '<', cutoff).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
