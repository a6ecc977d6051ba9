import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = new URL('../../../', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'obolus-lockfile-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The environment without the npm_* variables of the npm running the tests (its prefix above all). */
function npmFree(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([key]) => !key.toLowerCase().startsWith('npm_')));
}

describe('package-lock.json', () => {
  // npm rewrites a lockfile that disagrees with the registry's manifests (better-sqlite3's
  // `hasInstallScript`, issue 29), leaving `git status` dirty after `npm install` in a fresh
  // clone. The manifests are in npm's cache since this repository was installed: the check runs
  // offline, on the runtime dependencies (where the native one is), without install scripts.
  it('comes out of a fresh `npm install` unchanged', async () => {
    copyFileSync(join(ROOT, 'package.json'), join(dir, 'package.json'));
    copyFileSync(join(ROOT, 'package-lock.json'), join(dir, 'package-lock.json'));
    for (const name of readdirSync(join(ROOT, 'packages'))) {
      mkdirSync(join(dir, 'packages', name), { recursive: true });
      copyFileSync(join(ROOT, 'packages', name, 'package.json'), join(dir, 'packages', name, 'package.json'));
    }
    await run('npm', ['install', '--offline', '--ignore-scripts', '--omit=dev', '--no-audit', '--no-fund'], {
      cwd: dir,
      env: { ...npmFree(process.env), npm_config_loglevel: 'error' },
    });
    const before = readFileSync(join(ROOT, 'package-lock.json'), 'utf8').split('\n');
    const after = readFileSync(join(dir, 'package-lock.json'), 'utf8').split('\n');
    // Compared around the first line that differs, so that a failure shows what npm changed.
    const at = Math.max(0, after.findIndex((line, i) => line !== before[i]) - 3);
    expect(after.slice(at, at + 6)).toEqual(before.slice(at, at + 6));
    expect(after.length).toBe(before.length);
  }, 120_000);
});
