import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

/**
 * The browser code, bundled by esbuild in memory the first time it is asked for (no build
 * step, no build output in the repository). Each bundle is one ES module file, minified,
 * kept with its gzip form and its hashes for caching and Subresource Integrity.
 */

export interface Bundle {
  name: BundleName;
  code: Buffer;
  gzip: Buffer;
  /** First 16 hex of SHA-256: in asset file names, so a new build is a new URL. */
  hash: string;
  /** `sha384-…` for <script integrity>. */
  integrity: string;
}

const ENTRIES = {
  /** The card form inside the iframe. */
  widget: () => fileURLToPath(new URL('../../../web/widget/main.ts', import.meta.url)),
  /** The hosted checkout page's own script (it mounts the widget with the loader). */
  checkout: () => fileURLToPath(new URL('../../../web/checkout/hosted-page.ts', import.meta.url)),
  /** @obolus/js as served at /js/v1/obolus.js. */
  loader: () => fileURLToPath(import.meta.resolve('@obolus/js/served')),
} as const;
export type BundleName = keyof typeof ENTRIES;

/** Browsers the bundles are written for: ES2022 is in every browser released since 2021. */
const TARGET = ['es2022'];

const built = new Map<BundleName, Promise<Bundle>>();

/** The bundle, built once per process (the same code for every app in it). */
export function bundle(name: BundleName): Promise<Bundle> {
  let pending = built.get(name);
  if (!pending) {
    pending = buildBundle(name);
    built.set(name, pending);
  }
  return pending;
}

/** Starts every build now so the first shopper does not wait; failures surface on use. */
export function prebuildBundles(): void {
  for (const name of Object.keys(ENTRIES) as BundleName[]) bundle(name).catch(() => undefined);
}

async function buildBundle(name: BundleName): Promise<Bundle> {
  const result = await build({
    entryPoints: [ENTRIES[name]()],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: TARGET,
    // @obolus/js's TypeScript source, not the dist/ its package builds for other importers: the
    // loader served is always that of the running code.
    conditions: ['obolus-source'],
    write: false,
    legalComments: 'none',
    charset: 'utf8',
    logLevel: 'silent',
  });
  const file = result.outputFiles[0];
  if (!file) throw new Error(`esbuild produced nothing for ${name}`);
  const code = Buffer.from(file.contents);
  return {
    name,
    code,
    gzip: gzipSync(code, { level: 9 }),
    hash: createHash('sha256').update(code).digest('hex').slice(0, 16),
    integrity: `sha384-${createHash('sha384').update(code).digest('base64')}`,
  };
}

export const assetPath = (bundle: Bundle) => `/embed/assets/${bundle.name}-${bundle.hash}.js`;
