import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestAccount, type TestServer } from '../../server/test/support/server.ts';
import { API_TYPES } from '../scripts/api-types.ts';
import { apiTypesOf } from '../scripts/api-types-of.ts';
import { buildNodeSdk } from './support/build.ts';

const run = promisify(execFile);
const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const DOCUMENT = new URL('../../../docs/openapi.json', import.meta.url);

describe('the @obolus/node package', () => {
  let t: TestServer;
  let shop: TestAccount;
  beforeAll(async () => {
    [t] = await Promise.all([startTestServer('sqlite'), buildNodeSdk()]);
    shop = await t.newAccount();
  }, 120_000);
  afterAll(() => t.close());

  it('has no runtime dependencies', () => {
    expect(pkg.dependencies ?? {}).toEqual({});
  });

  it('its types are those of docs/openapi.json (else run `npm run openapi`)', () => {
    const document = JSON.parse(readFileSync(DOCUMENT, 'utf8'));
    expect(readFileSync(API_TYPES, 'utf8')).toBe(apiTypesOf(document));
  });

  it('`npm install` builds every file its exports name, from nothing (the prepare script)', async () => {
    // npm runs a workspace's prepare script on `npm install` and `npm ci`, and before `npm pack`:
    // the SDK imports by name right after install (issue 29). Into a fresh directory, so that no
    // earlier build can stand in for this one.
    const out = mkdtempSync(join(tmpdir(), 'obolus-node-build-'));
    try {
      await run('npm', ['run', 'prepare', '--silent', '--', '--outDir', out], {
        cwd: new URL('..', import.meta.url).pathname,
      });
      for (const target of Object.values(pkg.exports['.'] as Record<string, string>)) {
        expect(existsSync(join(out, target.replace(/^\.\/dist\//, ''))), target).toBe(true);
      }
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 60_000);

  it('works from plain JavaScript, imported by its name', async () => {
    const script = `
      import { Obolus, ObolusError } from '@obolus/node';
      const obolus = new Obolus(process.env.KEY, { baseUrl: process.env.BASE_URL });
      const intent = await obolus.paymentIntents.create({ amount: 4200, currency: 'USD', mode: 'sandbox' });
      const again = await obolus.paymentIntents.retrieve(intent.id);
      let code;
      try { await obolus.paymentIntents.retrieve('nope'); } catch (e) { code = e instanceof ObolusError && e.code; }
      console.log(JSON.stringify({ id: again.id, amount: again.amount, code }));
    `;
    // From examples/, as the example merchant imports it.
    const { stdout } = await run('npx', ['node', '--input-type=module', '-e', script], {
      cwd: new URL('../../../examples/merchant', import.meta.url).pathname,
      env: { ...process.env, KEY: shop.secretKey, BASE_URL: t.url },
    });
    const result = JSON.parse(stdout.trim());
    expect(result).toMatchObject({ amount: 4200, code: 'resource_missing' });
    expect(result.id).toMatch(/^[0-9a-f]{24}$/);
  });
});
