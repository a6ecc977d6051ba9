import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const DOCS = join(ROOT, 'docs');
const DECISIONS = join(DOCS, 'decisions');

const markdownFiles = (): string[] => [
  join(ROOT, 'README.md'),
  ...readdirSync(DOCS)
    .filter((name) => name.endsWith('.md'))
    .map((name) => join(DOCS, name)),
  ...readdirSync(DECISIONS)
    .filter((name) => name.endsWith('.md'))
    .map((name) => join(DECISIONS, name)),
];

/** Relative link targets of a markdown file, without their #anchor; code blocks left out. */
function relativeLinks(file: string): string[] {
  const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((match) => match[1]!.split('#')[0]!)
    .filter((target) => target !== '' && !/^[a-z]+:/i.test(target));
}

describe('the docs as a map', () => {
  it('architecture.md is one page: at most 120 lines, with the recipes a successor needs', () => {
    const text = readFileSync(join(DOCS, 'architecture.md'), 'utf8');
    expect(text.trimEnd().split('\n').length).toBeLessThanOrEqual(120);
    for (const recipe of ['Add a route', 'Add a connector', 'Add an event', 'Add an error code']) {
      expect(text).toContain(`**${recipe}`);
    }
  });

  it('decisions/README.md indexes every record, with a status, and nothing that is not there', () => {
    const index = readFileSync(join(DECISIONS, 'README.md'), 'utf8');
    const records = readdirSync(DECISIONS).filter((name) => /^\d{4}-.*\.md$/.test(name));
    const rows = index.split('\n').filter((line) => /^\| \[\d{4}\]\(/.test(line));
    const indexed = rows.map((row) => /\]\(([^)]+)\)/.exec(row)![1]);
    expect([...indexed].sort()).toEqual([...records].sort());
    for (const row of rows) expect(row).toMatch(/\| (accepted|superseded[^|]*|replaced[^|]*) \|$/);
  });

  it('every relative link in README.md, docs/ and docs/decisions/ leads to a file that exists', () => {
    const broken = markdownFiles().flatMap((file) =>
      relativeLinks(file)
        .filter((target) => !existsSync(resolve(dirname(file), target)))
        .map((target) => `${file.slice(ROOT.length)} -> ${target}`),
    );
    expect(broken).toEqual([]);
  });
});
