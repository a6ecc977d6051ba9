import { execFile } from 'node:child_process';
import { mkdirSync, rmSync, statSync } from 'node:fs';
import { promisify } from 'node:util';

const run = promisify(execFile);
const PACKAGE = new URL('../../', import.meta.url);
const LOCK = new URL('../../dist.lock', import.meta.url);

/**
 * Builds @obolus/node into its dist/ (`npm run build`), as a user's install would have it, for
 * tests that import the package by name. Test files run in parallel processes: one builds
 * while the others wait for it, so nobody imports a half-written dist/.
 */
export async function buildNodeSdk(): Promise<void> {
  for (;;) {
    try {
      mkdirSync(LOCK);
      break;
    } catch {
      if (Date.now() - statSync(LOCK, { throwIfNoEntry: false })!.mtimeMs > 120_000)
        rmSync(LOCK, { force: true, recursive: true });
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  try {
    await run('npm', ['run', 'build', '--silent'], { cwd: PACKAGE });
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}
