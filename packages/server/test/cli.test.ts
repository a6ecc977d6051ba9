import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OBOLUS_BIN, runCli } from './support/cli.ts';
import { createTestDatabase, PG_URL } from './support/engines.ts';
import { freePort } from './support/server.ts';
import { until } from './support/until.ts';

const dir = mkdtempSync(join(tmpdir(), 'obolus-cli-'));
const env = { OBOLUS_DATABASE_URL: join(dir, 'cli.db'), OBOLUS_LOG_LEVEL: 'warn' };
const obolus = (...args: string[]) => runCli(args, env);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('obolus CLI', () => {
  // Only serve and migrate create a database; every other command needs one.
  beforeAll(async () => expect((await obolus('migrate')).code).toBe(0), 60_000);

  let accountId = '';

  it('accounts create --json prints exactly one JSON object and nothing else', async () => {
    const res = await obolus(
      'accounts',
      'create',
      '--name',
      'Corner Shop',
      '--email',
      'owner@corner.example',
      '--json',
    );
    expect(res.code).toBe(0);
    const lines = res.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const out = JSON.parse(res.stdout);
    expect(Object.keys(out).sort()).toEqual(['account_id', 'client_key', 'secret_key']);
    expect(out.account_id).toMatch(/^acct_/);
    expect(out.secret_key).toMatch(/^sk_/);
    expect(out.client_key).toMatch(/^pk_/);
    accountId = out.account_id;
  });

  it('accounts list, deactivate and activate', async () => {
    const list = JSON.parse((await obolus('accounts', 'list', '--json')).stdout);
    expect(list).toEqual([expect.objectContaining({ account_id: accountId, name: 'Corner Shop', status: 'active' })]);
    expect((await obolus('accounts', 'deactivate', accountId)).code).toBe(0);
    expect(JSON.parse((await obolus('accounts', 'list', '--json')).stdout)[0].status).toBe('inactive');
    expect((await obolus('accounts', 'activate', accountId)).code).toBe(0);
    expect(JSON.parse((await obolus('accounts', 'list', '--json')).stdout)[0].status).toBe('active');
  });

  it('keys roll --grace prints a new key and when the old one stops', async () => {
    const res = await obolus('keys', 'roll', accountId, '--grace', '24', '--json');
    expect(res.code).toBe(0);
    const out = JSON.parse(res.stdout);
    expect(out.secret_key).toMatch(/^sk_/);
    const hours = (Date.parse(out.previous_keys_expire_at) - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(23.9);
    expect(hours).toBeLessThanOrEqual(24);
  });

  it.each([
    [[]],
    [['serve']],
    [['migrate']],
    [['accounts']],
    [['accounts', 'create']],
    [['accounts', 'list']],
    [['keys', 'roll']],
  ])('%j --help explains itself', async (args) => {
    const res = await obolus(...args, '--help');
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/Usage: obolus/);
  });

  it.each([
    [['bogus']],
    [['accounts', 'create', '--name', 'No Email']],
    [['accounts', 'create', '--name', 'X', '--email', 'not-an-email']],
    [['accounts', 'deactivate']],
    [['accounts', 'deactivate', 'acct_doesnotexist']],
    [['keys', 'roll', 'acct_x', '--grace', '-1']],
    [['keys', 'roll', 'acct_x', '--grace', 'soon']],
    [['accounts', 'list', '--colour']],
  ])('%j is a one-line error with exit code 2', async (args) => {
    const res = await obolus(...args);
    expect(res.code).toBe(2);
    expect(res.stderr.trim().split('\n')).toHaveLength(1);
    expect(res.stderr).toMatch(/error/i);
    expect(res.stdout).toBe('');
  });

  it('keys rotate-encryption makes a new card-encryption key', async () => {
    const first = JSON.parse((await obolus('keys', 'rotate-encryption', '--json')).stdout);
    const second = await obolus('keys', 'rotate-encryption', '--grace', '1', '--json');
    expect(second.code).toBe(0);
    const out = JSON.parse(second.stdout);
    expect(out).toEqual({ kid: expect.stringMatching(/^ck_/), previous_keys_decrypt_for_hours: 1 });
    expect(out.kid).not.toBe(first.kid);
  });

  it('keys list-encryption shows each key and its state; retire-encryption ends a previous key now', async () => {
    await obolus('keys', 'rotate-encryption', '--json');
    const current = JSON.parse((await obolus('keys', 'rotate-encryption', '--grace', '2', '--json')).stdout).kid;
    const listed = JSON.parse((await obolus('keys', 'list-encryption', '--json')).stdout);
    expect(listed[0]).toEqual({
      kid: current,
      alg: 'ECDH-ES+A256KW',
      created_at: expect.any(String),
      decrypts_until: null,
      state: 'current',
    });
    const previous = listed[1];
    expect(previous).toMatchObject({ alg: 'ECDH-ES+A256KW', state: 'decrypting' });

    const refused = await obolus('keys', 'retire-encryption', current);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/current key: rotate first/);
    const retired = await obolus('keys', 'retire-encryption', previous.kid, '--json');
    expect(retired.code).toBe(0);
    expect(JSON.parse(retired.stdout)).toEqual({
      kid: previous.kid,
      alg: 'ECDH-ES+A256KW',
      retired_at: expect.any(String),
    });
    const after = JSON.parse((await obolus('keys', 'list-encryption', '--json')).stdout);
    expect(after.find((k: { kid: string }) => k.kid === previous.kid).state).toBe('retired');
    // Once retired, there is nothing left to retire: a one-line error, as for an unknown key.
    for (const kid of [previous.kid, 'ck_unknown']) {
      const again = await obolus('keys', 'retire-encryption', kid);
      expect(again.code).toBe(2);
      expect(again.stderr.trim()).toBe(`error: No card-encryption key ${kid} still decrypts.`);
    }
  }, 120_000);

  it('migrate reports what it did', async () => {
    const res = await obolus('migrate');
    expect(res.code).toBe(0);
    expect(res.stderr).toMatch(/Already up to date/);
  });
});

/** Starts `obolus serve` and resolves with everything it printed up to its banner. */
function serve(
  serveEnv: Record<string, string>,
  args: string[] = [],
): Promise<{ child: ChildProcess; banner: string }> {
  const child = spawn(process.execPath, [OBOLUS_BIN, 'serve', ...args], {
    env: { ...process.env, ...serveEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (d) => {
      out += d;
      if (out.includes('/metrics')) resolve({ child, banner: out });
    });
    child.on('exit', (code) => reject(new Error(`serve exited with ${code}: ${out}`)));
  });
}

function stop(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    child.removeAllListeners('exit');
    child.on('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}

describe('obolus serve (npm start)', () => {
  const serveDir = mkdtempSync(join(tmpdir(), 'obolus-serve-'));
  afterAll(() => rmSync(serveDir, { recursive: true, force: true }));

  it('first start with --demo creates a demo account whose printed curl command creates a sandbox intent', async () => {
    const port = await freePort();
    const serveEnv = {
      OBOLUS_DATABASE_URL: join(serveDir, 'obolus.db'),
      PORT: String(port),
      OBOLUS_LOG_LEVEL: 'warn',
    };
    const { child, banner } = await serve(serveEnv, ['--demo']);
    try {
      expect(banner).toContain(`http://localhost:${port}`);
      expect(banner).toMatch(/Secret key\s+sk_/);
      expect(banner).toMatch(/Client key\s+pk_/);
      expect(banner).toContain(`Dashboard        http://localhost:${port}/dashboard`);
      expect(banner).toContain('npx obolus accounts set-password <account-id>');
      const curl = banner.split('\n').find((line) => line.trim().startsWith('curl '));
      expect(curl).toBeDefined();
      const { stdout } = await promisify(execFile)('sh', ['-c', curl as string]);
      const intent = JSON.parse(stdout);
      expect(intent).toMatchObject({
        status: 'requires_payment',
        mode: 'sandbox',
        amount: 2000,
        currency: 'USD',
      });
      const pageUrl = /(http:\/\/localhost:\d+\/prod_[0-9A-Za-z]+)/.exec(banner)?.[1];
      expect(pageUrl).toBeDefined();
      const page = await fetch(pageUrl!.replace('localhost', '127.0.0.1'));
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('Obolus demo mug');
    } finally {
      expect(await stop(child)).toBe(0);
    }
    // A second start finds the account and does not print a key it no longer has.
    const again = await serve(serveEnv, ['--demo']);
    try {
      expect(again.banner).not.toMatch(/sk_/);
      expect(again.banner).toMatch(/keys roll/);
    } finally {
      await stop(again.child);
    }
  });

  it('a first start over a database named by OBOLUS_DATABASE_URL creates no account without --demo', async () => {
    const port = await freePort();
    const { child, banner } = await serve({
      OBOLUS_DATABASE_URL: join(serveDir, 'production.db'),
      PORT: String(port),
      OBOLUS_LOG_LEVEL: 'warn',
    });
    try {
      expect(banner).not.toMatch(/sk_|demo account/);
      expect(banner).toMatch(/accounts list/);
    } finally {
      await stop(child);
    }
  });

  it.runIf(PG_URL)('never creates a demo account on PostgreSQL, and refuses --demo there', async () => {
    const schema = await createTestDatabase('postgres');
    const url = new URL(schema.url);
    url.searchParams.set('options', `-c search_path=${schema.schema}`);
    const port = await freePort();
    const env = { OBOLUS_DATABASE_URL: url.toString(), PORT: String(port), OBOLUS_LOG_LEVEL: 'warn' };
    try {
      const refused = await runCli(['serve', '--demo'], env);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('--demo is for the embedded SQLite database only');
      const { child, banner } = await serve(env);
      try {
        expect(banner).not.toMatch(/sk_/);
        const res = await runCli(['accounts', 'list', '--json'], env);
        expect(JSON.parse(res.stdout)).toEqual([]);
      } finally {
        await stop(child);
      }
    } finally {
      await schema.drop();
    }
  });

  it('a taken metrics port is one line naming the port and how to change it; the service runs on', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const metricsPort = (taken.address() as AddressInfo).port;
    const port = await freePort();
    const child = spawn(process.execPath, [OBOLUS_BIN, 'serve'], {
      env: {
        ...process.env,
        OBOLUS_DATABASE_URL: join(serveDir, 'taken-metrics.db'),
        PORT: String(port),
        OBOLUS_METRICS_PORT: String(metricsPort),
        OBOLUS_LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout?.on('data', (d) => (out += d));
    child.stderr?.on('data', (d) => (out += d));
    try {
      await until(() => out.includes('Metrics'));
      const lines = out.split('\n').filter((line) => line.includes('metrics listener not started'));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(`port ${metricsPort} on 127.0.0.1 is in use; set OBOLUS_METRICS_PORT`);
      expect(out).not.toMatch(/\bat .+:\d+:\d+|"stack"/);
      expect(out).toContain('off (OBOLUS_METRICS_PORT)');
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    } finally {
      await stop(child);
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  it('a taken HTTP port is one line naming the port and how to change it', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as AddressInfo).port;
    try {
      const res = await runCli(['serve'], {
        OBOLUS_DATABASE_URL: join(serveDir, 'taken-port.db'),
        PORT: String(port),
        OBOLUS_LOG_LEVEL: 'warn',
      });
      expect(res.code).toBe(1);
      expect(res.stderr.trim()).toBe(
        `error: port ${port} on 127.0.0.1 is in use (another obolus serve?): stop what listens there, or set PORT to a free port`,
      );
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  it('serves /metrics on its own loopback listener, not on the public port', async () => {
    const port = await freePort();
    const metricsPort = await freePort();
    const { child, banner } = await serve({
      OBOLUS_DATABASE_URL: join(serveDir, 'metrics.db'),
      PORT: String(port),
      OBOLUS_METRICS_PORT: String(metricsPort),
      OBOLUS_LOG_LEVEL: 'warn',
    });
    try {
      expect(banner).toContain(`http://127.0.0.1:${metricsPort}/metrics`);
      expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(404);
      const metrics = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
      expect(metrics.status).toBe(200);
      expect(await metrics.text()).toContain('obolus_http_requests_total');
    } finally {
      await stop(child);
    }
  });
});

describe('a command other than serve and migrate never creates a database', () => {
  const elsewhere = mkdtempSync(join(tmpdir(), 'obolus-elsewhere-'));
  afterAll(() => rmSync(elsewhere, { recursive: true, force: true }));

  it.each([
    [['accounts', 'list']],
    [['accounts', 'create', '--name', 'Shop', '--email', 'o@shop.example']],
    [['keys', 'rotate-encryption']],
    [['origins', 'list', 'acct_x']],
    [['worker']],
  ])('%j in a directory without one says where it looked and how to point at the right one', async (args) => {
    const res = await runCli(args, { OBOLUS_DATABASE_URL: '', OBOLUS_LOG_LEVEL: 'warn' }, undefined, elsewhere);
    expect(res.code).toBe(1);
    expect(res.stderr.trim().split('\n')).toHaveLength(1);
    expect(res.stderr).toContain(`no Obolus database at ${join(elsewhere, 'data', 'obolus.db')} (SQLite)`);
    expect(res.stderr).toContain('OBOLUS_DATABASE_URL');
    expect(res.stdout).toBe('');
    // No database, no data directory, no master key.
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it('--verbose prints the database a command uses, on standard error', async () => {
    const res = await obolus('accounts', 'list', '--json', '--verbose');
    expect(res.code).toBe(0);
    expect(res.stderr).toBe(`database: ${env.OBOLUS_DATABASE_URL} (SQLite)\n`);
    expect(Array.isArray(JSON.parse(res.stdout))).toBe(true);
    const migrate = await obolus('migrate', '--verbose');
    expect(migrate.stderr).toContain(`database: ${env.OBOLUS_DATABASE_URL} (SQLite)`);
  });

  it.runIf(PG_URL)('on PostgreSQL, a schema without Obolus tables is refused and left empty', async () => {
    const schema = await createTestDatabase('postgres');
    const url = new URL(schema.url);
    url.searchParams.set('options', `-c search_path=${schema.schema}`);
    try {
      const res = await runCli(['accounts', 'list'], { OBOLUS_DATABASE_URL: url.toString(), OBOLUS_LOG_LEVEL: 'warn' });
      expect(res.code).toBe(1);
      expect(res.stderr).toMatch(/no Obolus database at postgres:\/\/.*\(PostgreSQL\)/);
      const tables = await runCli(['migrate'], { OBOLUS_DATABASE_URL: url.toString(), OBOLUS_LOG_LEVEL: 'warn' });
      // migrate found nothing applied before: the refused command created no table.
      expect(tables.stderr).toMatch(/Done: \d+ migration\(s\) applied/);
      const listed = await runCli(['accounts', 'list', '--json'], { OBOLUS_DATABASE_URL: url.toString() });
      expect(JSON.parse(listed.stdout)).toEqual([]);
    } finally {
      await schema.drop();
    }
  });
});
