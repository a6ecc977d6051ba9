import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = new URL('../../../../', import.meta.url).pathname;

/** The publishable packages: name -> workspace folder. */
export const PUBLISHED = { obolus: 'packages/server', '@obolus/node': 'packages/node', '@obolus/js': 'packages/js' };
type Name = keyof typeof PUBLISHED;

/** The environment without the npm_* variables of the npm running the tests (its prefix above all). */
export function npmFree(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([key]) => !key.toLowerCase().startsWith('npm_')));
}

/**
 * `npm pack` of every publishable package into `dir` (their prepack/prepare scripts build
 * dist/), the three at once: each builds its own package. File names by package name.
 */
export async function packAll(dir: string): Promise<Record<Name, string>> {
  const packed = await Promise.all(
    Object.keys(PUBLISHED).map(async (name) => {
      const args = ['pack', '--json', '--pack-destination', dir, '--workspace', name];
      const { stdout } = await run('npm', args, { cwd: ROOT, env: npmFree(process.env), maxBuffer: 64 * 1024 * 1024 });
      return (JSON.parse(stdout) as { name: Name; filename: string }[])[0];
    }),
  );
  return Object.fromEntries(packed.map((p) => [p?.name, p?.filename])) as Record<Name, string>;
}

interface LockEntry {
  dev?: boolean;
  link?: boolean;
  resolved?: string;
  devDependencies?: unknown;
  [key: string]: unknown;
}

/**
 * An empty project depending on the tarballs, with a lockfile taken from the repository's:
 * the same versions and integrities of every runtime dependency, so that `npm install
 * --offline` finds them all in npm's cache (which holds the tarballs this repository was
 * installed from, not the registry's lists of versions an unlocked install would need).
 */
export function writeProject(dir: string, tarballs: Record<Name, string>): void {
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, LockEntry>;
  };
  const dependencies = Object.fromEntries(Object.entries(tarballs).map(([name, file]) => [name, `file:${file}`]));
  const packages: Record<string, LockEntry> = { '': { name: 'shop', dependencies } };
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (path === '' || path.startsWith('packages/') || entry.link || entry.dev) continue;
    packages[path] = entry;
  }
  for (const [name, folder] of Object.entries(PUBLISHED) as [Name, string][]) {
    const { devDependencies: _, ...entry } = lock.packages[folder] ?? {};
    packages[`node_modules/${name}`] = { ...entry, resolved: `file:${tarballs[name]}` };
  }
  const manifest = { name: 'shop', private: true, type: 'module', dependencies };
  writeFileSync(join(dir, 'package.json'), JSON.stringify(manifest, null, 2));
  writeFileSync(
    join(dir, 'package-lock.json'),
    JSON.stringify({ name: 'shop', lockfileVersion: 3, requires: true, packages }, null, 2),
  );
}
