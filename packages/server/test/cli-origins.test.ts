import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './support/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'obolus-cli-origins-'));
const env = { OBOLUS_DATABASE_URL: join(dir, 'cli.db'), OBOLUS_LOG_LEVEL: 'warn' };
const obolus = (...args: string[]) => runCli(args, env);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Every `obolus` start costs about a second of CPU: the accounts are made once, and the three
// refusals share one account, checked unchanged once after them.
describe('obolus origins', () => {
  let id: string;
  let refusing: string;
  const createAccount = async (name: string) =>
    JSON.parse((await obolus('accounts', 'create', '--name', name, '--email', `${name}@s.example`, '--json')).stdout)
      .account_id as string;
  beforeAll(async () => {
    expect((await obolus('migrate')).code).toBe(0);
    id = await createAccount('s');
    refusing = await createAccount('t');
  }, 60_000);

  it('sets, lists and clears the allowed origins of an account', async () => {
    expect(JSON.parse((await obolus('origins', 'list', id, '--json')).stdout)).toEqual([]);

    const set = await obolus(
      'origins',
      'set',
      id,
      'https://Shop.example',
      'http://localhost:3000',
      'https://shop.example',
    );
    expect(set.code).toBe(0);
    expect(JSON.parse((await obolus('origins', 'list', id, '--json')).stdout)).toEqual([
      'https://shop.example',
      'http://localhost:3000',
    ]);

    expect((await obolus('origins', 'set', id)).code).toBe(0);
    expect((await obolus('origins', 'list', id)).stdout).toContain('any page may embed');
  });

  it('refuses https://shop.example/path, shop.example and ftp://shop.example, which are not origins, and changes nothing', async () => {
    for (const origin of ['https://shop.example/path', 'shop.example', 'ftp://shop.example']) {
      const res = await obolus('origins', 'set', refusing, 'https://ok.example', origin);
      expect(res.code).toBe(2);
      expect(res.stderr).toContain(origin);
    }
    expect(JSON.parse((await obolus('origins', 'list', refusing, '--json')).stdout)).toEqual([]);
  });

  it('an unknown account is a usage error', async () => {
    const res = await obolus('origins', 'list', 'acct_missing');
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('No such account');
  });
});
