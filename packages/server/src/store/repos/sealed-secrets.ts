import { type Kysely, sql } from 'kysely';
import type { SecretBox } from '../../crypto/master-key.ts';
import type { Database } from '../schema.ts';

/**
 * The associated data of each sealed column: the row's id and the column, so a sealed value
 * moved to another row or column does not open (decision 0070).
 */
export const cardKeyAad = (kid: string) => `encryption_keys:${kid}:private_jwk`;
export const endpointAad = (id: string, column: 'secret' | 'previous_secret') => `webhook_endpoints:${id}:${column}`;

/** Opens a sealed column; a row still in clear (key_version null, before its first re-seal) is read as is. */
export function openColumn(box: SecretBox, value: string, aad: string, version: string | null): string {
  return version === null ? value : box.open(value, aad, version);
}

export interface ResealReport {
  cardKeys: number;
  webhookEndpoints: number;
}

/**
 * Seals every secret not yet under the current master key: `plainOnly` on start (rows written
 * before migration 0020), all of them for `obolus keys rotate-master`. Each row is rewritten
 * only if nobody changed it meanwhile.
 */
export async function resealSecrets(db: Kysely<Database>, box: SecretBox, plainOnly: boolean): Promise<ResealReport> {
  const current = box.current.version;
  const stale = sql<boolean>`key_version is null${plainOnly ? sql`` : sql` or key_version <> ${current}`}`;
  const unchanged = (version: string | null) =>
    version === null ? sql<boolean>`key_version is null` : sql<boolean>`key_version = ${version}`;
  let cardKeys = 0;
  const keys = await db
    .selectFrom('encryption_keys')
    .select(['kid', 'private_jwk', 'key_version'])
    .where(stale)
    .execute();
  for (const row of keys) {
    const aad = cardKeyAad(row.kid);
    const { sealed, version } = box.seal(openColumn(box, row.private_jwk, aad, row.key_version), aad);
    const result = await db
      .updateTable('encryption_keys')
      .set({ private_jwk: sealed, key_version: version })
      .where('kid', '=', row.kid)
      .where(unchanged(row.key_version))
      .executeTakeFirst();
    cardKeys += Number(result.numUpdatedRows);
  }
  let webhookEndpoints = 0;
  const endpoints = await db
    .selectFrom('webhook_endpoints')
    .select(['id', 'secret', 'previous_secret', 'key_version'])
    .where(stale)
    .execute();
  for (const row of endpoints) {
    const result = await db
      .updateTable('webhook_endpoints')
      .set(sealEndpointSecrets(box, row.id, openEndpointSecrets(box, row)))
      .where('id', '=', row.id)
      .where(unchanged(row.key_version))
      .executeTakeFirst();
    webhookEndpoints += Number(result.numUpdatedRows);
  }
  return { cardKeys, webhookEndpoints };
}

export function openEndpointSecrets(
  box: SecretBox,
  row: { id: string; secret: string; previous_secret: string | null; key_version: string | null },
): { secret: string; previousSecret: string | null } {
  return {
    secret: openColumn(box, row.secret, endpointAad(row.id, 'secret'), row.key_version),
    previousSecret:
      row.previous_secret === null
        ? null
        : openColumn(box, row.previous_secret, endpointAad(row.id, 'previous_secret'), row.key_version),
  };
}

/** The stored form of an endpoint's two secrets, both under the current master key. */
export function sealEndpointSecrets(
  box: SecretBox,
  id: string,
  secrets: { secret: string; previousSecret: string | null },
): { secret: string; previous_secret: string | null; key_version: string } {
  const secret = box.seal(secrets.secret, endpointAad(id, 'secret'));
  const previous =
    secrets.previousSecret === null ? null : box.seal(secrets.previousSecret, endpointAad(id, 'previous_secret'));
  return { secret: secret.sealed, previous_secret: previous?.sealed ?? null, key_version: secret.version };
}
