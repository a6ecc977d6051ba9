import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { promisify } from 'node:util';

const run = promisify(execFile);
const PACKAGE = new URL('../../', import.meta.url);
const LOCK = new URL('../../dist.lock', import.meta.url);
const SRC = new URL('../../src/', import.meta.url);
const BUILT = new URL('../../dist/index.js', import.meta.url);

/** dist/ is newer than every source file: another test process (or the user) just built it. */
function upToDate(): boolean {
  const built = statSync(BUILT, { throwIfNoEntry: false })?.mtimeMs;
  if (built === undefined) return false;
  return readdirSync(SRC).every((name) => statSync(new URL(name, SRC)).mtimeMs < built);
}

/**
 * Runs `work` while no other test process writes packages/node/dist/: test files run in
 * parallel processes, and one must not import a half-written dist/ another is building.
 */
export async function whileHoldingDist<T>(work: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      mkdirSync(LOCK);
      break;
    } catch {
      // A lock left by a killed test process is taken over after two minutes.
      const lock = statSync(LOCK, { throwIfNoEntry: false });
      if (lock && Date.now() - lock.mtimeMs > 120_000) rmSync(LOCK, { force: true, recursive: true });
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  try {
    return await work();
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}

/**
 * Builds @obolus/node into its dist/ (`npm run build`, which `npm install` runs as the
 * package's prepare script), for tests that import the package by name, unless dist/ is newer
 * than every source file.
 */
export function buildNodeSdk(): Promise<void> {
  return whileHoldingDist(async () => {
    if (!upToDate()) await run('npm', ['run', 'build', '--silent'], { cwd: PACKAGE });
  });
}
