import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const CONFIG = join(ROOT, '.dependency-cruiser.cjs');
const DEPCRUISE = join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruiser.mjs');
const trees: string[] = [];

/** A tree shaped like packages/server/src, with the files given, checked as `npm run lint` checks it. */
function violationsOf(files: Record<string, string>): string[] {
  const tree = mkdtempSync(join(tmpdir(), 'obolus-layers-'));
  trees.push(tree);
  writeFileSync(
    join(tree, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { module: 'nodenext', allowImportingTsExtensions: true, noEmit: true } }),
  );
  for (const [path, text] of Object.entries(files)) {
    const file = join(tree, 'packages/server/src', path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
  const run = spawnSync(process.execPath, [DEPCRUISE, 'packages', '--config', CONFIG, '--output-type', 'json'], {
    cwd: tree,
    encoding: 'utf8',
  });
  const report = JSON.parse(run.stdout) as { summary: { violations: { rule: { name: string } }[] } };
  return report.summary.violations.map((violation) => violation.rule.name).sort();
}

afterAll(() => {
  for (const tree of trees) rmSync(tree, { recursive: true, force: true });
});

describe('npm run lint holds the layer rule (decision 0282)', () => {
  it('passes a tree that keeps it', () => {
    expect(
      violationsOf({
        'http/route.ts': "import { useCase } from '../domain/use-case.ts';\nexport const route = useCase;\n",
        'domain/use-case.ts': "import type { Port } from './ports.ts';\nexport const useCase = (port: Port) => port;\n",
        'domain/ports.ts': 'export interface Port { id: string }\n',
        'store/repo.ts': "import type { Port } from '../domain/ports.ts';\nexport const repo: Port = { id: 'x' };\n",
      }),
    ).toEqual([]);
  });

  it('fails on the domain importing an adapter, anything below http importing http, and crypto importing the domain', () => {
    expect(
      violationsOf({
        'http/services.ts': 'export interface Services { id: string }\n',
        'store/repo.ts': 'export const repo = 1;\n',
        'domain/use-case.ts': "import { repo } from '../store/repo.ts';\nexport const useCase = repo;\n",
        'workers/sweeper.ts':
          "import type { Services } from '../http/services.ts';\nexport const sweep = (s: Services) => s;\n",
        'crypto/keys.ts': "import { useCase } from '../domain/use-case.ts';\nexport const keys = useCase;\n",
      }),
    ).toEqual(['crypto-knows-no-domain', 'domain-knows-no-adapter', 'nothing-below-http-imports-http']);
  });

  it('fails on an import cycle, even one of types only', () => {
    const names = violationsOf({
      'domain/intents.ts': "import type { Event } from './events.ts';\nexport interface Intent { events: Event[] }\n",
      'domain/events.ts': "import type { Intent } from './intents.ts';\nexport interface Event { intent: Intent }\n",
    });
    expect(new Set(names)).toEqual(new Set(['no-cycles']));
  });
});
