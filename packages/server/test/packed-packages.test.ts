import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { whileHoldingDist } from '../../node/test/support/build.ts';
import { freePort } from './support/free-port.ts';
import { npmFree, packAll, writeProject } from './support/packed-project.ts';

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'obolus-packed-'));
// The project's Node 24 first on the PATH, as `npx` in a merchant's project on Node 24 would have it.
const env = {
  ...npmFree(process.env),
  PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH}`,
  OBOLUS_DATABASE_URL: join(dir, 'obolus.db'),
  OBOLUS_LOG_LEVEL: 'warn',
  npm_config_loglevel: 'error',
};
const inProject = (command: string, args: string[]) => run(command, args, { cwd: dir, env });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * What `npm pack` makes of each publishable package, installed into an empty project from the
 * tarballs alone, offline (issue 29: Node strips no types under node_modules, so the published
 * packages must carry JavaScript).
 */
describe('the packages as published', () => {
  beforeAll(async () => {
    // Packing runs @obolus/node's prepare script, which rewrites its dist/ that other test files import.
    const tarballs = await whileHoldingDist(() => packAll(dir));
    writeProject(dir, tarballs);
    await inProject('npm', ['install', '--offline', '--no-audit', '--no-fund']);
  }, 180_000);

  it('`npx obolus --help` runs', async () => {
    const { stdout } = await inProject('npx', ['obolus', '--help']);
    expect(stdout).toMatch(/^Usage: obolus/);
    expect(stdout).toContain('serve');
  });

  it('obolus migrates a database, creates an account and serves the widget and its loader', async () => {
    await inProject('npx', ['obolus', 'migrate']);
    const { stdout } = await inProject(
      'npx',
      'obolus accounts create --name Shop --email o@shop.example --json'.split(' '),
    );
    const { client_key } = JSON.parse(stdout) as { client_key: string };
    const port = await freePort();
    const child = spawn(join(dir, 'node_modules/.bin/obolus'), ['serve'], {
      cwd: dir,
      env: { ...env, PORT: String(port), OBOLUS_METRICS_PORT: 'off' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      await new Promise<void>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (d) => {
          out += d;
          if (out.includes(`http://localhost:${port}`)) resolve();
        });
        child.on('exit', (code) => reject(new Error(`serve exited with ${code}: ${out}`)));
      });
      const base = `http://127.0.0.1:${port}`;
      const loader = await fetch(`${base}/js/v1/obolus.js`);
      expect(loader.status).toBe(200);
      expect(await loader.text()).toContain('frame-check');
      const page = await fetch(`${base}/embed?pk=${client_key}`);
      expect(page.status).toBe(200);
      const script = /src="(\/embed\/assets\/widget-[0-9a-f]+\.js)"/.exec(await page.text())?.[1];
      expect(script).toBeDefined();
      expect((await fetch(`${base}${script}`)).status).toBe(200);
    } finally {
      child.removeAllListeners('exit');
      if (child.exitCode === null) await new Promise((resolve) => child.once('exit', resolve).kill('SIGTERM'));
    }
  });

  it('@obolus/node and @obolus/js import by name from plain JavaScript', async () => {
    const script = `
      const { Obolus, verifyWebhook } = await import('@obolus/node');
      const js = await import('@obolus/js');
      console.log(JSON.stringify([typeof Obolus, typeof verifyWebhook, typeof js.Obolus]));
    `;
    const { stdout } = await inProject(process.execPath, ['--input-type=module', '-e', script]);
    expect(JSON.parse(stdout)).toEqual(['function', 'function', 'function']);
  });
});
