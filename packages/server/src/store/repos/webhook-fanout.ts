import type { Kysely } from 'kysely';
import type { SecretBox } from '../../crypto/master-key.ts';
import type { StoredEvent } from '../../domain/events.ts';
import type { Delivery } from '../../domain/webhooks/deliveries.ts';
import type { WebhookEndpoint } from '../../domain/webhooks/endpoints.ts';
import type { FanoutStore } from '../../domain/webhooks/fanout.ts';
import type { AccountId } from '../../ids.ts';
import type { Database, WebhookDeliveriesTable } from '../schema.ts';
import { isPostgres } from './engine.ts';
import { toEvent } from './events.ts';
import { toEndpoint } from './webhook-endpoints.ts';

/** Rows per INSERT: far below either engine's limit on bound parameters. */
const INSERT_CHUNK = 500;

export function deliveryRow(delivery: Delivery): WebhookDeliveriesTable {
  return {
    id: delivery.id,
    account_id: delivery.accountId,
    endpoint_id: delivery.endpointId,
    event_id: delivery.eventId,
    origin: delivery.origin,
    status: delivery.status,
    attempts: delivery.attempts,
    next_attempt_at: delivery.nextAttemptAt,
    locked_until: null,
    lock_token: null,
    first_attempted_at: delivery.firstAttemptedAt,
    last_attempted_at: null,
    created_at: delivery.createdAt,
    updated_at: delivery.createdAt,
  };
}

export class WebhookFanoutRepository implements FanoutStore {
  readonly #db: Kysely<Database>;
  readonly #postgres: boolean;
  readonly #box: SecretBox;
  constructor(db: Kysely<Database>, box: SecretBox) {
    this.#db = db;
    this.#box = box;
    this.#postgres = isPostgres(db);
  }

  async claimUnfannedAcrossAccounts(now: number, leaseMs: number, limit: number): Promise<StoredEvent[]> {
    const candidates = this.#db
      .selectFrom('events')
      .select('id')
      .where('fanned_out_at', 'is', null)
      .where((eb) => eb.or([eb('fanout_locked_until', 'is', null), eb('fanout_locked_until', '<=', now)]))
      .orderBy('created_at')
      .orderBy('id')
      .limit(limit)
      .$if(this.#postgres, (q) => q.forUpdate().skipLocked());
    const rows = await this.#db
      .updateTable('events')
      .set({ fanout_locked_until: now + leaseMs })
      .where('id', 'in', candidates)
      // Repeated for the rows a concurrent claim changed after this statement's snapshot.
      .where('fanned_out_at', 'is', null)
      .where((eb) => eb.or([eb('fanout_locked_until', 'is', null), eb('fanout_locked_until', '<=', now)]))
      .returningAll()
      .execute();
    return rows.map(toEvent).sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
  }

  async enabledEndpoints(accountIds: AccountId[]): Promise<WebhookEndpoint[]> {
    if (accountIds.length === 0) return [];
    const rows = await this.#db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('account_id', 'in', accountIds)
      .where('enabled', '=', 1)
      .execute();
    return rows.map((row) => toEndpoint(this.#box, row));
  }

  async commitFanout(eventIds: string[], deliveries: Delivery[], now: number): Promise<void> {
    await this.#db.transaction().execute(async (trx) => {
      for (let i = 0; i < deliveries.length; i += INSERT_CHUNK) {
        await trx
          .insertInto('webhook_deliveries')
          .values(deliveries.slice(i, i + INSERT_CHUNK).map(deliveryRow))
          .onConflict((oc) => oc.doNothing())
          .execute();
      }
      await trx
        .updateTable('events')
        .set({ fanned_out_at: now, fanout_locked_until: null })
        .where('id', 'in', eventIds)
        .where('fanned_out_at', 'is', null)
        .execute();
    });
  }
}
