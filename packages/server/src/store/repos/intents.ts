import type { Kysely } from 'kysely';
import type { EventDraft } from '../../domain/events.ts';
import type { IntentFilter, IntentStore, Page, PaymentIntent } from '../../domain/intents.ts';
import type { AccountId } from '../../ids.ts';
import { readAtEndOfTurn } from '../end-of-turn.ts';
import type { HotPaths } from '../hot-paths.ts';
import { intentRow, toIntent } from '../intent-rows.ts';
import { olderThan, toPage } from '../keyset.ts';
import type { Database } from '../schema.ts';
import { TransactionPerWrite, type WriteRunner } from '../write-runner.ts';
import { appendEvents } from './events.ts';

export { intentRow, toIntent };

export class IntentsRepository implements IntentStore {
  readonly #db: Kysely<Database>;
  readonly #writes: WriteRunner;
  readonly #hot: HotPaths | undefined;
  constructor(db: Kysely<Database>, writes: WriteRunner = new TransactionPerWrite(db), hot?: HotPaths) {
    this.#db = db;
    this.#writes = writes;
    this.#hot = hot;
  }

  async insert(intent: PaymentIntent, events: EventDraft[], idempotencyKey?: string): Promise<void> {
    const row = intentRow(intent, idempotencyKey);
    // The hot path writes the one event a new intent has; anything else takes the general path.
    const [only] = events;
    if (this.#hot && only && events.length === 1) return this.#hot.createIntent(row, only, intent.createdAt);
    await this.#writes.run(async (trx) => {
      await trx.insertInto('payment_intents').values(row).execute();
      await appendEvents(trx, events, intent.createdAt);
    });
  }

  async findByIdempotencyKey(accountId: AccountId, key: string, since: number): Promise<PaymentIntent | undefined> {
    const row = await this.#db
      .selectFrom('payment_intents')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('idempotency_key', '=', key)
      .where('created_at', '>=', since)
      .executeTakeFirst();
    return row && toIntent(row);
  }

  async find(accountId: AccountId, id: string): Promise<PaymentIntent | undefined> {
    if (this.#hot) {
      const found = await this.#hot.findIntent(accountId, id);
      return found && toIntent(found);
    }
    const row = await this.#db
      .selectFrom('payment_intents')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row && toIntent(row);
  }

  async update(before: PaymentIntent, after: PaymentIntent): Promise<PaymentIntent | undefined> {
    const row = intentRow(after);
    const written = await this.#writes.run((trx) => {
      let update = trx
        .updateTable('payment_intents')
        .set({
          amount: row.amount,
          description: row.description,
          descriptor: row.descriptor,
          reference: row.reference,
          externalid: row.externalid,
          metadata: row.metadata,
          updated_at: row.updated_at,
        })
        .where('id', '=', before.id)
        .where('account_id', '=', before.accountId)
        .where('status', '=', before.status)
        .where('updated_at', '=', before.updatedAt);
      update =
        before.lastTransactionId === null
          ? update.where('last_transaction_id', 'is', null)
          : update.where('last_transaction_id', '=', before.lastTransactionId);
      return update.returningAll().executeTakeFirst();
    });
    return written && toIntent(written);
  }

  /** Served by the indexes of migration 0050: (account, created), (account, mode, created), by reference, by externalid. */
  async list(
    accountId: AccountId,
    limit: number,
    after?: PaymentIntent,
    filter: IntentFilter = {},
  ): Promise<Page<PaymentIntent>> {
    let query = this.#db
      .selectFrom('payment_intents')
      .selectAll()
      .where('account_id', '=', accountId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit + 1);
    if (after) {
      query = query.where(olderThan(after));
    }
    if (filter.status !== undefined) query = query.where('status', '=', filter.status);
    if (filter.mode !== undefined) query = query.where('mode', '=', filter.mode);
    if (filter.reference !== undefined) query = query.where('reference', '=', filter.reference);
    if (filter.externalid !== undefined) query = query.where('externalid', '=', filter.externalid);
    if (filter.createdFrom !== undefined) query = query.where('created_at', '>=', filter.createdFrom);
    if (filter.createdTo !== undefined) query = query.where('created_at', '<=', filter.createdTo);
    const rows = await readAtEndOfTurn(() => query.execute());
    return toPage(rows, limit, toIntent);
  }
}
