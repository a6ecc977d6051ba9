import { type Kysely, type Selectable, sql, type Transaction } from 'kysely';
import type { SecretBox } from '../../crypto/master-key.ts';
import type { StoredEvent } from '../../domain/events.ts';
import type {
  AttemptOutcome,
  ClaimedDelivery,
  Delivery,
  DeliveryStore,
  SendCaps,
} from '../../domain/webhooks/deliveries.ts';
import type { WebhookEndpoint } from '../../domain/webhooks/endpoints.ts';
import { randomBase62 } from '../../ids.ts';
import type { Database, WebhookDeliveriesTable } from '../schema.ts';
import { isPostgres } from './engine.ts';
import { appendEvents, toEvent } from './events.ts';
import { attemptRow } from './webhook-attempts.ts';
import { fairDueDeliveryIds } from './webhook-claim.ts';
import { toEndpoint } from './webhook-endpoints.ts';

export function toDelivery(row: Selectable<WebhookDeliveriesTable>): Delivery {
  return {
    id: row.id,
    accountId: row.account_id,
    endpointId: row.endpoint_id,
    eventId: row.event_id,
    origin: row.origin,
    status: row.status,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at,
    firstAttemptedAt: row.first_attempted_at,
    createdAt: row.created_at,
  };
}

export class WebhookDeliveriesRepository implements DeliveryStore {
  readonly #db: Kysely<Database>;
  readonly #postgres: boolean;
  readonly #box: SecretBox;
  constructor(db: Kysely<Database>, box: SecretBox) {
    this.#db = db;
    this.#box = box;
    this.#postgres = isPostgres(db);
  }

  async claimDueAcrossAccounts(
    now: number,
    leaseMs: number,
    limit: number,
    caps: SendCaps,
  ): Promise<ClaimedDelivery[]> {
    const lockToken = randomBase62(16);
    let rows = await this.#lease(now, leaseMs, limit, caps, lockToken);
    // On PostgreSQL a claim racing another process's can pick, from its snapshot, the very rows
    // the other just leased, and then lease none: a second statement sees that lease and skips it.
    if (rows.length === 0 && this.#postgres) rows = await this.#lease(now, leaseMs, limit, caps, lockToken);
    if (rows.length === 0) return [];
    const endpoints = await this.#endpoints(rows.map((r) => r.endpoint_id));
    const events = await this.#events(rows.map((r) => r.event_id));
    return rows.flatMap((row) => {
      const endpoint = endpoints.find((e) => e.id === row.endpoint_id);
      const event = events.find((e) => e.id === row.event_id);
      return endpoint && event ? [{ delivery: toDelivery(row), lockToken, endpoint, event }] : [];
    });
  }

  async #lease(
    now: number,
    leaseMs: number,
    limit: number,
    caps: SendCaps,
    lockToken: string,
  ): Promise<Selectable<WebhookDeliveriesTable>[]> {
    const candidates = fairDueDeliveryIds(now, limit, caps, this.#postgres);
    const { rows } = await sql<Selectable<WebhookDeliveriesTable>>`
      update webhook_deliveries set locked_until = ${now + leaseMs}, lock_token = ${lockToken}
      where id in (${candidates})
        and status = 'pending' and (locked_until is null or locked_until <= ${now})
      returning *`.execute(this.#db);
    return rows;
  }

  async #endpoints(ids: string[]): Promise<WebhookEndpoint[]> {
    const rows = await this.#db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('id', 'in', [...new Set(ids)])
      .execute();
    return rows.map((row) => toEndpoint(this.#box, row));
  }

  async #events(ids: string[]): Promise<StoredEvent[]> {
    const rows = await this.#db
      .selectFrom('events')
      .selectAll()
      .where('id', 'in', [...new Set(ids)])
      .execute();
    return rows.map(toEvent);
  }

  async recordAttempt(claim: ClaimedDelivery, outcome: AttemptOutcome): Promise<boolean> {
    const { attempt } = outcome;
    return this.#db.transaction().execute(async (trx) => {
      const moved = await trx
        .updateTable('webhook_deliveries')
        .set({
          status: outcome.status,
          attempts: claim.delivery.attempts + 1,
          next_attempt_at: outcome.nextAttemptAt,
          first_attempted_at: outcome.firstAttemptedAt,
          last_attempted_at: attempt.attemptedAt,
          locked_until: null,
          lock_token: null,
          updated_at: attempt.attemptedAt,
        })
        .where('id', '=', claim.delivery.id)
        .where('lock_token', '=', claim.lockToken)
        .executeTakeFirst();
      if (moved.numUpdatedRows === 0n) return false;
      await trx.insertInto('webhook_attempts').values(attemptRow(attempt)).execute();
      if (attempt.succeeded) await this.#markHealthy(trx, claim.endpoint);
      else await this.#markFailing(trx, claim.endpoint, outcome);
      return true;
    });
  }

  async #markHealthy(trx: Transaction<Database>, endpoint: WebhookEndpoint): Promise<void> {
    await trx
      .updateTable('webhook_endpoints')
      .set({ failing_since: null })
      .where('id', '=', endpoint.id)
      .where('failing_since', 'is not', null)
      .execute();
  }

  /** Starts the failure clock, and disables the endpoint (telling the merchant) once it has run 3 days. */
  async #markFailing(trx: Transaction<Database>, endpoint: WebhookEndpoint, outcome: AttemptOutcome): Promise<void> {
    const now = outcome.attempt.attemptedAt;
    await trx
      .updateTable('webhook_endpoints')
      .set({ failing_since: now })
      .where('id', '=', endpoint.id)
      .where('failing_since', 'is', null)
      .execute();
    const disabled = await trx
      .updateTable('webhook_endpoints')
      .set({ enabled: 0, disabled_reason: 'failing', updated_at: now })
      .where('id', '=', endpoint.id)
      .where('enabled', '=', 1)
      .where('failing_since', '<=', outcome.disableIfFailingSince)
      .returningAll()
      .executeTakeFirst();
    if (disabled) await appendEvents(trx, [outcome.disabledEvent(toEndpoint(this.#box, disabled))], now);
  }
}
