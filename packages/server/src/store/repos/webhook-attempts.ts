import type { Kysely, Selectable } from 'kysely';
import type { Page } from '../../domain/intents.ts';
import type { Attempt, Delivery } from '../../domain/webhooks/deliveries.ts';
import type { AttemptFilter, DeliveryLog } from '../../domain/webhooks/delivery-queries.ts';
import type { AccountId } from '../../ids.ts';
import { toPage } from '../keyset.ts';
import type { Database, WebhookAttemptsTable } from '../schema.ts';
import { deliveryRow } from './webhook-fanout.ts';

export function toAttempt(row: Selectable<WebhookAttemptsTable>): Attempt {
  return {
    id: row.id,
    accountId: row.account_id,
    endpointId: row.endpoint_id,
    deliveryId: row.delivery_id,
    eventId: row.event_id,
    eventType: row.event_type,
    url: row.url,
    attemptedAt: row.attempted_at,
    statusCode: row.status_code,
    latencyMs: row.latency_ms,
    responseBody: row.response_body,
    error: row.error,
    succeeded: row.succeeded === 1,
    nextAttemptAt: row.next_attempt_at,
  };
}

export function attemptRow(attempt: Attempt): WebhookAttemptsTable {
  return {
    id: attempt.id,
    account_id: attempt.accountId,
    endpoint_id: attempt.endpointId,
    delivery_id: attempt.deliveryId,
    event_id: attempt.eventId,
    event_type: attempt.eventType,
    url: attempt.url,
    attempted_at: attempt.attemptedAt,
    status_code: attempt.statusCode,
    latency_ms: attempt.latencyMs,
    response_body: attempt.responseBody,
    error: attempt.error,
    succeeded: attempt.succeeded ? 1 : 0,
    next_attempt_at: attempt.nextAttemptAt,
  };
}

/** The attempt log of an endpoint, and the deliveries a resend adds. */
export class WebhookAttemptsRepository implements DeliveryLog {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async insertDelivery(delivery: Delivery): Promise<void> {
    await this.#db.insertInto('webhook_deliveries').values(deliveryRow(delivery)).execute();
  }

  async findAttempt(accountId: AccountId, endpointId: string, id: string): Promise<Attempt | undefined> {
    const row = await this.#db
      .selectFrom('webhook_attempts')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('endpoint_id', '=', endpointId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row && toAttempt(row);
  }

  /** Every attempt to deliver these events of the account, oldest first (a payment's detail page). */
  async forEvents(accountId: AccountId, eventIds: readonly string[]): Promise<Attempt[]> {
    if (eventIds.length === 0) return [];
    const rows = await this.#db
      .selectFrom('webhook_attempts')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('event_id', 'in', [...eventIds])
      .orderBy('attempted_at')
      .orderBy('id')
      .limit(200)
      .execute();
    return rows.map(toAttempt);
  }

  async listAttempts(
    accountId: AccountId,
    endpointId: string,
    limit: number,
    filter: AttemptFilter,
    after?: Attempt,
  ): Promise<Page<Attempt>> {
    let query = this.#db
      .selectFrom('webhook_attempts')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('endpoint_id', '=', endpointId)
      .orderBy('attempted_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit + 1);
    if (filter.eventId !== undefined) query = query.where('event_id', '=', filter.eventId);
    if (after) {
      query = query.where((eb) =>
        eb.or([
          eb('attempted_at', '<', after.attemptedAt),
          eb.and([eb('attempted_at', '=', after.attemptedAt), eb('id', '<', after.id)]),
        ]),
      );
    }
    const rows = await query.execute();
    return toPage(rows, limit, toAttempt);
  }
}
