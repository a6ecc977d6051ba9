import { readFileSync } from 'node:fs';

export const README = readFileSync(new URL('../../../../README.md', import.meta.url), 'utf8');

export interface FencedBlock {
  lang: string;
  code: string;
}

/** The fenced code blocks of one `## ` section of a Markdown text, in order. */
export function sectionBlocks(markdown: string, heading: string): FencedBlock[] {
  const start = markdown.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`no section '## ${heading}'`);
  const next = markdown.indexOf('\n## ', start + heading.length + 4);
  const section = markdown.slice(start, next < 0 ? undefined : next);
  return [...section.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => ({ lang: m[1] ?? '', code: m[2] ?? '' }));
}

/** The one block of `lang` whose code contains `marker`; the test fails if the README lost it. */
export function block(blocks: FencedBlock[], lang: string, marker: string): string {
  const found = blocks.filter((b) => b.lang === lang && b.code.includes(marker));
  if (found.length !== 1) throw new Error(`expected one ${lang} block with '${marker}', found ${found.length}`);
  return (found[0] as FencedBlock).code;
}
