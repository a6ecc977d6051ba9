import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { masterKeyFileFor, masterKeyOf, newMasterKeyText, SecretBox } from '../src/crypto/master-key.ts';
import { endpointAad } from '../src/store/repos/sealed-secrets.ts';
import { runCli } from './support/cli.ts';
import { ENGINES, PG_URL } from './support/engines.ts';
import type { TestServer } from './support/server.ts';
import { useTestServer } from './support/use-test-server.ts';

const ENDPOINT = { url: 'https://shop.example/hooks', enabled_events: ['*'] };

/** The environment an `obolus` command needs to reach the test's database. */
function cliEnv(t: TestServer, masterKey: string): Record<string, string> {
  if (!t.database.schema) return { OBOLUS_DATABASE_URL: t.database.url, OBOLUS_MASTER_KEY: masterKey };
  const url = new URL(t.database.url);
  url.searchParams.set('options', `-c search_path=${t.database.schema}`);
  return { OBOLUS_DATABASE_URL: url.toString(), OBOLUS_MASTER_KEY: masterKey, OBOLUS_LOG_LEVEL: 'warn' };
}

describe.each(ENGINES)('secrets at rest (%s)', (engine) => {
  // SQLite: the embedded default, a key generated beside the database; PostgreSQL: OBOLUS_MASTER_KEY.
  const { t, shop } = useTestServer(engine, {
    config: { webhooksPollMs: 0, ...(engine === 'sqlite' ? { masterKey: undefined } : {}) },
    withAccount: true,
  });

  const db = () => t.server.services.database.db;
  const createEndpoint = (headers: Record<string, string> = {}) =>
    t.call('POST', '/api/v1/webhook-endpoints', { key: shop.secretKey, body: ENDPOINT, headers });

  it('stores webhook signing secrets and card-encryption private keys sealed, never in clear', async () => {
    const created = await createEndpoint();
    expect(created.json.secret).toMatch(/^whsec_/);
    await t.call('GET', '/embed/v1/jwks.json');
    const row = await db()
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('id', '=', created.json.id)
      .executeTakeFirstOrThrow();
    expect(row.secret).not.toContain(created.json.secret.slice(6));
    expect(row.secret).not.toContain('whsec_');
    expect(row.key_version).toMatch(/^mk_[0-9a-f]{12}$/);
    const keys = await db().selectFrom('encryption_keys').selectAll().execute();
    expect(keys.length).toBeGreaterThan(0);
    // The current key is a P-256 one (decision 0250); its private scalar never shows either.
    const ec = keys.find((key) => JSON.parse(key.public_jwk).kty === 'EC');
    expect(ec).toBeDefined();
    const [own] = await t.server.services.repos.encryptionKeys.usable(t.server.services.clock.now());
    expect(own?.kid).toBe(ec?.kid);
    expect(own?.privateJwk.d).toMatch(/^[\w-]{43}$/);
    expect(ec?.private_jwk).not.toContain(own?.privateJwk.d as string);
    for (const key of keys) {
      // Sealed text is base64url: no JSON member of a JWK can show in it (a bare "RSA" can, by
      // chance: it failed CI once).
      expect(key.private_jwk).toMatch(/^[\w.-]+$/);
      expect(key.private_jwk).not.toMatch(/"(?:d|kty|p|q)"/);
      expect(key.key_version).toBe(row.key_version);
    }
    // The service still reads what it sealed.
    const found = await t.server.services.repos.webhookEndpoints.find(shop.id as never, created.json.id);
    expect(found?.secret).toBe(created.json.secret);
  });

  it('a sealed secret copied onto another row does not open there', async () => {
    const a = (await createEndpoint()).json.id as string;
    const b = (await createEndpoint()).json.id as string;
    const rowA = await db().selectFrom('webhook_endpoints').selectAll().where('id', '=', a).executeTakeFirstOrThrow();
    const box = t.server.services.secrets;
    expect(box.open(rowA.secret, endpointAad(a, 'secret'), rowA.key_version as string)).toMatch(/^whsec_/);
    expect(() => box.open(rowA.secret, endpointAad(b, 'secret'), rowA.key_version as string)).toThrow();
  });

  it('an idempotent replay of a create or roll answers the endpoint without its secret, and none is kept', async () => {
    const headers = { 'Idempotency-Key': `create-${engine}` };
    const first = await createEndpoint(headers);
    expect(first.json.secret).toMatch(/^whsec_/);
    const replay = await createEndpoint(headers);
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.json).toEqual({ ...first.json, secret: undefined });
    expect(replay.json).not.toHaveProperty('secret');

    const rollHeaders = { 'Idempotency-Key': `roll-${engine}` };
    const rollPath = `/api/v1/webhook-endpoints/${first.json.id}/secret/roll`;
    const rolled = await t.call('POST', rollPath, { key: shop.secretKey, body: {}, headers: rollHeaders });
    expect(rolled.json.secret).toMatch(/^whsec_/);
    const rollReplay = await t.call('POST', rollPath, { key: shop.secretKey, body: {}, headers: rollHeaders });
    expect(rollReplay.headers.get('idempotent-replayed')).toBe('true');
    expect(rollReplay.json).not.toHaveProperty('secret');
    expect(rollReplay.json.id).toBe(first.json.id);

    const stored = await db().selectFrom('idempotency_keys').select('response_body').execute();
    for (const { response_body } of stored) expect(response_body ?? '').not.toContain('whsec_');
  });

  it('seals secrets left in clear by an older version on the next start', async () => {
    const id = (await createEndpoint()).json.id as string;
    const plain = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    await db()
      .updateTable('webhook_endpoints')
      .set({ secret: plain, previous_secret: null, key_version: null })
      .where('id', '=', id)
      .execute();
    // `obolus migrate` opens the services as every start does.
    const env = cliEnv(t, engine === 'postgres' ? (process.env.OBOLUS_MASTER_KEY as string) : '');
    const migrate = await runCli(['migrate'], env);
    expect(migrate.code).toBe(0);
    const row = await db().selectFrom('webhook_endpoints').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.key_version).toMatch(/^mk_/);
    expect(row.secret).not.toContain('whsec_');
    expect((await t.server.services.repos.webhookEndpoints.find(shop.id as never, id))?.secret).toBe(plain);
  });

  it('`obolus keys rotate-master` reseals every secret under the new key; the old key opens none of them', async () => {
    const created = await createEndpoint();
    const oldVersion = t.server.services.secrets.current.version;
    let env: Record<string, string>;
    let newKey: string | undefined;
    if (engine === 'postgres') {
      newKey = newMasterKeyText();
      env = cliEnv(t, `${newKey},${process.env.OBOLUS_MASTER_KEY}`);
    } else {
      env = cliEnv(t, '');
    }
    const oldKeyText = engine === 'sqlite' ? readFileSync(masterKeyFileFor(t.database.url), 'utf8') : undefined;
    const result = await runCli(['keys', 'rotate-master', '--json'], env);
    expect(result.stderr).toBe('');
    const out = JSON.parse(result.stdout);
    expect(out.master_key_version).not.toBe(oldVersion);
    expect(out.retired_versions).toEqual([oldVersion]);
    expect(out.resealed.webhook_endpoints).toBeGreaterThan(0);
    expect(out.resealed.card_encryption_keys).toBeGreaterThan(0);

    const versions = await db().selectFrom('webhook_endpoints').select('key_version').distinct().execute();
    expect(versions.map((v) => v.key_version)).toEqual([out.master_key_version]);
    const cardVersions = await db().selectFrom('encryption_keys').select('key_version').distinct().execute();
    expect(cardVersions.map((v) => v.key_version)).toEqual([out.master_key_version]);

    if (engine === 'sqlite') {
      // The running server follows the key file: it still reads the secret, now under the new key.
      const file = masterKeyFileFor(t.database.url);
      const previous = oldKeyText as string;
      expect(readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(1);
      // The retired key is kept beside it, owner-only, for backups taken before (issue 25 item 13).
      expect(out.retired_keys_file).toBe(`${file}.retired`);
      expect(statSync(out.retired_keys_file).mode & 0o777).toBe(0o600);
      const retired = readFileSync(out.retired_keys_file, 'utf8');
      expect(retired).toContain(previous.trim());
      expect(retired).toContain(`# ${oldVersion}, retired `);
      expect(statSync(file).mode & 0o077).toBe(0);
      expect(t.server.services.secrets.current.version).toBe(out.master_key_version);
      const found = await t.server.services.repos.webhookEndpoints.find(shop.id as never, created.json.id);
      expect(found?.secret).toBe(created.json.secret);
    } else {
      const row = await db()
        .selectFrom('webhook_endpoints')
        .selectAll()
        .where('id', '=', created.json.id)
        .executeTakeFirstOrThrow();
      const onlyNew = new SecretBox([masterKeyOf(newKey as string, 'new key')]);
      expect(onlyNew.open(row.secret, endpointAad(row.id, 'secret'), row.key_version as string)).toBe(
        created.json.secret,
      );
      const onlyOld = t.server.services.secrets;
      expect(() => onlyOld.open(row.secret, endpointAad(row.id, 'secret'), row.key_version as string)).toThrow();
    }
  });
});

describe('master key configuration', () => {
  it.runIf(PG_URL)('PostgreSQL refuses to start without OBOLUS_MASTER_KEY, in one line', async () => {
    const result = await runCli(['migrate'], { OBOLUS_DATABASE_URL: PG_URL as string, OBOLUS_MASTER_KEY: '' });
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('OBOLUS_MASTER_KEY is required on PostgreSQL');
  });

  it('a master key that is not 32 bytes of base64 is refused, naming the variable and not echoing it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'obolus-master-'));
    try {
      const file = join(dir, 'obolus.db');
      const result = await runCli(['migrate'], { OBOLUS_DATABASE_URL: file, OBOLUS_MASTER_KEY: 'c2hvcnQ=' });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('OBOLUS_MASTER_KEY must be 32 random bytes in base64');
      expect(result.stderr).not.toContain('c2hvcnQ=');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('an in-memory SQLite database is refused in one line, and no file is made', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'obolus-memory-'));
    try {
      const result = await runCli(['migrate'], { OBOLUS_DATABASE_URL: ':memory:' }, undefined, dir);
      expect(result.code).toBe(1);
      expect(result.stderr.trim()).toBe(
        'error: OBOLUS_DATABASE_URL cannot be an in-memory SQLite database: give a file path (or a PostgreSQL URL)',
      );
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
