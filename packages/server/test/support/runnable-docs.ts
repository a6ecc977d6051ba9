import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { buildNodeSdk } from '../../../node/test/support/build.ts';

/**
 * Docs that run: fenced code blocks whose info string holds the word `runnable`
 * (```` ```sh runnable ````, ```` ```js runnable ````, ```` ```ts runnable ````) are taken out
 * of a Markdown file and executed, in order, against a real server. A ```` ```json output ````
 * block right after one is the documented answer: every field it shows must be in what the
 * block printed, with the same JSON type (values may differ). Usable for any Markdown file,
 * README.md included.
 */
export interface RunnableBlock {
  lang: string;
  code: string;
  /** Where the block starts, `file:line`, for failure messages. */
  at: string;
  /** The documented output, when a ```json output block follows. */
  output?: unknown;
}

export interface RunOptions {
  /** Literal text swapped before running, e.g. the docs' `http://localhost:4242` -> the test server. */
  replace?: Record<string, string>;
  /** Environment of every block, e.g. OBOLUS_SECRET_KEY. */
  env?: Record<string, string>;
  timeoutMs?: number;
  /** Shell blocks: curl fails on an HTTP error status (--fail-with-body), so a 4xx fails the block. Default true. */
  curlFailsOnHttpError?: boolean;
}

const REPO = resolve(import.meta.dirname, '../../../..');
const FENCE = /^(`{3,})(.*)$/;
const run = promisify(execFile);

export function extractRunnableBlocks(markdown: string, file: string): RunnableBlock[] {
  const lines = markdown.split('\n');
  const blocks: RunnableBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i] ?? '');
    if (!open) continue;
    const [, fence = '', info = ''] = open;
    const end = lines.findIndex((line, j) => j > i && line.trim() === fence);
    if (end < 0) throw new Error(`${file}:${i + 1}: unclosed code block`);
    const words = info.trim().split(/\s+/);
    const code = lines.slice(i + 1, end).join('\n');
    const previous = blocks.at(-1);
    if (words.includes('runnable')) {
      blocks.push({ lang: words[0] ?? '', code, at: `${file}:${i + 1}` });
    } else if (words[0] === 'json' && words.includes('output') && previous && previous.output === undefined) {
      previous.output = JSON.parse(code);
    }
    i = end;
  }
  return blocks;
}

function command(lang: string, code: string): [string, string[]] {
  switch (lang) {
    case 'sh':
    case 'bash':
    case 'shell':
      return ['bash', ['-e', '-o', 'pipefail', '-c', code]];
    case 'js':
    case 'javascript':
    case 'mjs':
      return [process.execPath, ['--input-type=module', '-e', code]];
    case 'ts':
    case 'typescript':
      return [process.execPath, ['--input-type=module-typescript', '-e', code]];
    default:
      throw new Error(`no runner for \`${lang}\` blocks`);
  }
}

/** Runs one block (bare imports such as '@obolus/node' resolve from the repository) and returns what it printed. */
export async function runBlock(block: RunnableBlock, options: RunOptions = {}): Promise<string> {
  let code = block.code;
  for (const [from, to] of Object.entries(options.replace ?? {})) code = code.split(from).join(to);
  if (code.includes('@obolus/node')) await buildNodeSdk();
  const shell = ['sh', 'bash', 'shell'].includes(block.lang);
  if (shell && options.curlFailsOnHttpError !== false) {
    code = `curl() { command curl --fail-with-body --silent --show-error "$@"; }\n${code}`;
  }
  const [program, args] = command(block.lang, code);
  const work = mkdtempSync(join(tmpdir(), 'obolus-doc-'));
  try {
    const { stdout } = await run(program, args, {
      cwd: shell ? work : REPO,
      timeout: options.timeoutMs ?? 30_000,
      env: {
        ...process.env,
        // `node` in a shell block is the repository's Node 24.
        PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
        ...options.env,
      },
    });
    if (block.output !== undefined) assertShape(JSON.parse(stdout), block.output, block.at);
    return stdout;
  } catch (error) {
    const e = error as { stderr?: string; stdout?: string; message: string };
    throw new Error(`${block.at}: the documented block failed: ${e.message}\n${e.stdout ?? ''}${e.stderr ?? ''}`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Runs every runnable block of a Markdown file in order; returns how many ran. */
export async function runMarkdownFile(path: string, options: RunOptions = {}): Promise<number> {
  const blocks = extractRunnableBlocks(readFileSync(path, 'utf8'), path.replace(`${REPO}/`, ''));
  for (const block of blocks) await runBlock(block, options);
  return blocks.length;
}

const typeOf = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value);

/** Every field the docs show exists in `actual` with the same JSON type; null stands for any type. */
export function assertShape(actual: unknown, documented: unknown, at: string, path = '$'): void {
  if (documented === null || actual === null) return;
  if (typeOf(actual) !== typeOf(documented)) {
    throw new Error(`${at}: ${path} is ${typeOf(actual)}, the docs show ${typeOf(documented)}`);
  }
  if (Array.isArray(documented) && Array.isArray(actual) && documented.length > 0 && actual.length > 0) {
    assertShape(actual[0], documented[0], at, `${path}[0]`);
  } else if (typeOf(documented) === 'object') {
    for (const [key, value] of Object.entries(documented as Record<string, unknown>)) {
      if (!(key in (actual as Record<string, unknown>)))
        throw new Error(`${at}: ${path}.${key} is documented but missing`);
      assertShape((actual as Record<string, unknown>)[key], value, at, `${path}.${key}`);
    }
  }
}
