import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { extractRunnableBlocks, runBlock, runMarkdownFile } from './support/runnable-docs.ts';
import { createSettledTransaction } from './support/transactions.ts';
import { useTestServer } from './support/use-test-server.ts';

const REPO = resolve(import.meta.dirname, '../../..');
/** Every Markdown page of docs/, and the SDK's README. */
const PAGES = [
  ...readdirSync(join(REPO, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
  'packages/node/README.md',
].filter((page) => extractRunnableBlocks(readFileSync(join(REPO, page), 'utf8'), page).length > 0);

/** The ids the docs show as examples, mapped to real objects of the test account. */
const DOC_TRANSACTION_ID = '6727d5e0a1b2c3d4e5f60718';
const DOC_INTENT_ID = '6727d5c9f0e1d2c3b4a59687';

describe('docs that run: every runnable block of docs/*.md against a real server', () => {
  let replace: Record<string, string>;
  const { t, shop } = useTestServer('sqlite', { withAccount: true });
  beforeAll(async () => {
    const settled = await createSettledTransaction(t, shop, { externalid: 'order-77' });
    replace = {
      'https://pay.example.com': t.url,
      'https://app.example.com': t.url,
      'http://localhost:4242': t.url,
      [DOC_TRANSACTION_ID]: settled.id,
      [DOC_INTENT_ID]: settled.intentId,
    };
  });

  it('covers the pages that hold runnable blocks', () => {
    expect(PAGES).toEqual(expect.arrayContaining(['docs/transactions.md', 'packages/node/README.md']));
  });

  it.each(PAGES)(
    '%s',
    async (page) => {
      const env = {
        OBOLUS_SECRET_KEY: shop.secretKey,
        OBOLUS_CLIENT_KEY: shop.clientKey,
        LAST_RUN: String(Math.floor(Date.now() / 1000) - 3600),
      };
      expect(await runMarkdownFile(join(REPO, page), { replace, env })).toBeGreaterThan(0);
    },
    120_000,
  );

  describe('the runner fails where the docs are wrong', () => {
    const markdown = (blocks: string) => `# Page\n\ntext\n\n${blocks}\n`;
    it('takes only blocks marked runnable, with their line, and the documented output after one', () => {
      const blocks = extractRunnableBlocks(
        markdown('```sh\necho skipped\n```\n\n```sh runnable\necho \'{"a":1}\'\n```\n\n```json output\n{"a": 2}\n```'),
        'page.md',
      );
      expect(blocks).toEqual([{ lang: 'sh', code: `echo '{"a":1}'`, at: 'page.md:9', output: { a: 2 } }]);
    });
    it('a block that exits non-zero, or whose curl gets an HTTP error, names its line', async () => {
      const [failing] = extractRunnableBlocks(markdown('```sh runnable\nexit 3\n```'), 'page.md');
      await expect(runBlock(failing!)).rejects.toThrow(/page\.md:5: the documented block failed/);
      const [unauthorized] = extractRunnableBlocks(
        markdown(`\`\`\`sh runnable\ncurl ${t.url}/api/v1/payment-intents -H "Authorization: Bearer sk_wrong"\n\`\`\``),
        'page.md',
      );
      await expect(runBlock(unauthorized!)).rejects.toThrow(/401/);
    });
    it('an answer without a documented field, or with another type, fails', async () => {
      const [missing] = extractRunnableBlocks(
        markdown('```js runnable\nconsole.log(JSON.stringify({ a: 1 }))\n```\n```json output\n{"a": 1, "b": "x"}\n```'),
        'page.md',
      );
      await expect(runBlock(missing!)).rejects.toThrow(/\$\.b is documented but missing/);
      const [typed] = extractRunnableBlocks(
        markdown(
          '```ts runnable\nconst a: string = "1";\nconsole.log(JSON.stringify({ a }))\n```\n```json output\n{"a": 1}\n```',
        ),
        'page.md',
      );
      await expect(runBlock(typed!)).rejects.toThrow(/\$\.a is string, the docs show number/);
    });
  });
});
