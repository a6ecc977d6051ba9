import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { OBOLUS_BIN, runCli } from './support/cli.ts';

// What `obolus --help` and a usage error show, and what they load: commander and the commands'
// definitions, never the server (decision 0260). How fast that is, `npm run bench` measures.
const dir = mkdtempSync(join(tmpdir(), 'obolus-cli-start-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const env = { OBOLUS_DATABASE_URL: join(dir, 'none.db'), OBOLUS_LOG_LEVEL: 'warn' };

/** A module hook that writes the URL of every module the CLI loads to `file`, one a line. */
function loadRecorder(file: string): string {
  const hook = join(dir, 'record-loads.mjs');
  writeFileSync(
    hook,
    `import { registerHooks } from 'node:module';
import { appendFileSync } from 'node:fs';
registerHooks({ load(url, context, next) { appendFileSync(${JSON.stringify(file)}, url + '\\n'); return next(url, context); } });
`,
  );
  return hook;
}

async function modulesLoadedBy(args: string[]): Promise<{ own: string[]; packages: string[] }> {
  const file = join(dir, `loads-${args.join('-')}.txt`);
  writeFileSync(file, '');
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', loadRecorder(file), OBOLUS_BIN, ...args], {
      env: { ...process.env, ...env },
      stdio: 'ignore',
    });
    child.on('error', reject);
    child.on('close', () => resolve());
  });
  const urls = readFileSync(file, 'utf8').split('\n').filter(Boolean);
  const own = urls.filter((u) => u.includes('/packages/server/src/')).map((u) => u.replace(/.*\/src\//, ''));
  const packages = [
    ...new Set(
      urls
        .filter((u) => u.includes('/node_modules/'))
        .map((u) => u.replace(/.*node_modules\/((@[^/]+\/)?[^/]+).*/, '$1')),
    ),
  ];
  return { own, packages };
}

describe('obolus --help and usage errors', () => {
  it('--help lists every command with what it does', async () => {
    const res = await runCli(['--help'], env);
    expect(res.code).toBe(0);
    expect(res.stderr).toBe('');
    expect(res.stdout).toMatch(/^Usage: obolus \[options\] \[command\]/);
    for (const [command, usage, says] of [
      ['serve', ' [options]', 'Run the service'],
      ['migrate', ' [options]', 'Bring the database schema up to date'],
      ['accounts', '', 'Create, list, activate and deactivate merchant accounts'],
      ['audit', '', 'Read the audit trail'],
      ['keys', '', 'Manage secret keys'],
      ['origins', '', 'Show or set the origins'],
      ['worker', ' [options]', 'Deliver webhooks'],
      ['backup', ' [options] <file>', 'Copy the SQLite database'],
      ['restore', ' [options] <file>', 'Check a backup'],
      ['listen', ' [options]', "Forward your account's events"],
      ['dev', '', 'Development tools'],
      ['verify-connector', ' [options]', 'Run scripted test payments'],
    ]) {
      // Commander wraps descriptions to the terminal's width: compared with the lines joined.
      expect(res.stdout.replace(/\s+/g, ' ')).toContain(` ${command}${usage} ${says}`);
    }
  });

  it.each([
    [['serve', '--workers', 'x'], /--workers <n>' argument 'x' is invalid\. a whole number of processes, 1 to 64/],
    [['audit', 'list', 'acct_x', '--limit', '0'], /--limit <n>' argument '0' is invalid\. 1 to 100000/],
    [['listen', '--interval', '5'], /--interval takes 100 to 60000 ms/],
    [['dev', 'stripe-double', '--port', '70000'], /--port takes 0 to 65535/],
    [['verify-connector', '--connector', 'paypal'], /Allowed choices are stripe, checkout/],
    [['backup'], /missing required argument 'file'/],
    [['servr'], /unknown command 'servr'\n\(Did you mean serve\?\)/],
  ])('%j says what is wrong in one line (and a suggestion), exit code 2', async (args, says) => {
    const res = await runCli(args, env);
    expect(res.code).toBe(2);
    expect(res.stdout).toBe('');
    expect(res.stderr).toMatch(/^error: /);
    expect(res.stderr).toMatch(says);
  });

  it.each([
    [['--help']],
    [['serve', '--help']],
    [['bogus']],
    [['serve', '--workers', 'x']],
    [['accounts', 'create', '--name', 'No Email']],
  ])('%j loads commander and the commands’ definitions only, never the server', async (args) => {
    const { own, packages } = await modulesLoadedBy(args);
    expect(packages).toEqual(['commander']);
    // Besides the definitions (cli/): the few small modules their option parsers use.
    expect(own.filter((m) => !m.startsWith('cli/')).sort()).toEqual(
      ['clock.ts', 'domain/events.ts', 'ids.ts', 'store/file-modes.ts'].sort(),
    );
    expect(own).toContain('cli/main.ts');
  });
});
