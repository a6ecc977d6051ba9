import type { Insertable, Kysely, Selectable } from 'kysely';
import type { SecretBox } from '../../crypto/master-key.ts';
import type { AuditEvent } from '../../domain/audit.ts';
import type { Mode, Page } from '../../domain/intents.ts';
import type { EndpointChanges, EndpointStore, Subscribable, WebhookEndpoint } from '../../domain/webhooks/endpoints.ts';
import type { AccountId } from '../../ids.ts';
import { olderThan, toPage } from '../keyset.ts';
import type { Database, WebhookEndpointsTable } from '../schema.ts';
import { insertAuditEvent } from './audit.ts';
import { isPostgres } from './engine.ts';
import { openEndpointSecrets, sealEndpointSecrets } from './sealed-secrets.ts';

export function toEndpoint(box: SecretBox, row: Selectable<WebhookEndpointsTable>): WebhookEndpoint {
  const { secret, previousSecret } = openEndpointSecrets(box, row);
  return {
    id: row.id,
    accountId: row.account_id,
    url: row.url,
    mode: row.mode,
    description: row.description,
    enabledEvents: JSON.parse(row.enabled_events) as Subscribable[],
    enabled: row.enabled === 1,
    disabledReason: row.disabled_reason,
    secret,
    previousSecret,
    previousSecretExpiresAt: row.previous_secret_expires_at,
    failingSince: row.failing_since,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function changesRow(box: SecretBox, id: string, changes: EndpointChanges): Partial<WebhookEndpointsTable> {
  const row: Partial<WebhookEndpointsTable> = { updated_at: changes.updatedAt };
  if (changes.url !== undefined) row.url = changes.url;
  if (changes.enabledEvents !== undefined) row.enabled_events = JSON.stringify(changes.enabledEvents);
  if (changes.description !== undefined) row.description = changes.description;
  if (changes.enabled !== undefined) row.enabled = changes.enabled ? 1 : 0;
  if (changes.disabledReason !== undefined) row.disabled_reason = changes.disabledReason;
  if (changes.failingSince !== undefined) row.failing_since = changes.failingSince;
  if (changes.secret !== undefined || changes.previousSecret !== undefined) {
    // Both are sealed under one key version, so a change of secrets always names both.
    if (changes.secret === undefined || changes.previousSecret === undefined) {
      throw new Error('a change of webhook secrets names the secret and the previous secret');
    }
    Object.assign(
      row,
      sealEndpointSecrets(box, id, { secret: changes.secret, previousSecret: changes.previousSecret }),
    );
  }
  if (changes.previousSecretExpiresAt !== undefined) row.previous_secret_expires_at = changes.previousSecretExpiresAt;
  return row;
}

export class WebhookEndpointsRepository implements EndpointStore {
  readonly #db: Kysely<Database>;
  readonly #box: SecretBox;
  constructor(db: Kysely<Database>, box: SecretBox) {
    this.#db = db;
    this.#box = box;
  }

  /** Inserts the endpoint unless its account has `maxPerAccount` already; answers whether it did. */
  async insert(endpoint: WebhookEndpoint, maxPerAccount: number, audit?: AuditEvent): Promise<boolean> {
    return this.#db.transaction().execute(async (trx) => {
      // PostgreSQL: concurrent creates of one account queue on its row, so the count holds.
      await trx
        .selectFrom('accounts')
        .select('id')
        .where('id', '=', endpoint.accountId)
        .$if(isPostgres(this.#db), (q) => q.forUpdate())
        .execute();
      const { count } = await trx
        .selectFrom('webhook_endpoints')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('account_id', '=', endpoint.accountId)
        .executeTakeFirstOrThrow();
      if (Number(count) >= maxPerAccount) return false;
      await trx.insertInto('webhook_endpoints').values(this.#row(endpoint)).execute();
      if (audit) await insertAuditEvent(trx, audit);
      return true;
    });
  }

  #row(endpoint: WebhookEndpoint): Insertable<WebhookEndpointsTable> {
    return {
      id: endpoint.id,
      account_id: endpoint.accountId,
      url: endpoint.url,
      mode: endpoint.mode,
      description: endpoint.description,
      enabled_events: JSON.stringify(endpoint.enabledEvents),
      enabled: endpoint.enabled ? 1 : 0,
      disabled_reason: endpoint.disabledReason,
      ...sealEndpointSecrets(this.#box, endpoint.id, endpoint),
      previous_secret_expires_at: endpoint.previousSecretExpiresAt,
      failing_since: endpoint.failingSince,
      created_at: endpoint.createdAt,
      updated_at: endpoint.updatedAt,
    };
  }

  async find(accountId: AccountId, id: string): Promise<WebhookEndpoint | undefined> {
    const row = await this.#db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row && toEndpoint(this.#box, row);
  }

  async list(
    accountId: AccountId,
    limit: number,
    after?: WebhookEndpoint,
    mode?: Mode,
  ): Promise<Page<WebhookEndpoint>> {
    let query = this.#db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('account_id', '=', accountId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit + 1);
    if (mode) query = query.where('mode', '=', mode);
    if (after) {
      query = query.where(olderThan(after));
    }
    const rows = await query.execute();
    return toPage(rows, limit, (row) => toEndpoint(this.#box, row));
  }

  async update(
    accountId: AccountId,
    id: string,
    changes: EndpointChanges,
    audit?: AuditEvent,
  ): Promise<WebhookEndpoint | undefined> {
    const change = (db: Kysely<Database>) =>
      db
        .updateTable('webhook_endpoints')
        .set(changesRow(this.#box, id, changes))
        .where('account_id', '=', accountId)
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst();
    const row = !audit
      ? await change(this.#db)
      : await this.#db.transaction().execute(async (trx) => {
          const changed = await change(trx);
          if (changed) await insertAuditEvent(trx, audit);
          return changed;
        });
    return row && toEndpoint(this.#box, row);
  }

  async delete(accountId: AccountId, id: string, audit?: AuditEvent): Promise<boolean> {
    return this.#db.transaction().execute(async (trx) => {
      const deliveries = trx
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('account_id', '=', accountId)
        .where('endpoint_id', '=', id);
      await trx.deleteFrom('webhook_attempts').where('delivery_id', 'in', deliveries).execute();
      await trx
        .deleteFrom('webhook_deliveries')
        .where('account_id', '=', accountId)
        .where('endpoint_id', '=', id)
        .execute();
      const result = await trx
        .deleteFrom('webhook_endpoints')
        .where('account_id', '=', accountId)
        .where('id', '=', id)
        .executeTakeFirst();
      const deleted = result.numDeletedRows > 0n;
      if (deleted && audit) await insertAuditEvent(trx, audit);
      return deleted;
    });
  }
}
