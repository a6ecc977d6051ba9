#!/usr/bin/env node
// The one file that must run on any Node: it refuses old ones before loading the rest.
import { existsSync } from 'node:fs';
import module from 'node:module';
import { fileURLToPath } from 'node:url';

const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  console.error(
    `obolus needs Node.js 24 or newer (this is ${process.version}); run it with npx or npm scripts, which use the project's Node 24.`,
  );
  process.exit(1);
}
// V8's code cache on disk, so that every start after the first skips compiling (and type-stripping)
// the modules it loads: about a quarter of a start's CPU. In this package's own directory, not the
// shared temporary one, where another user could plant code; where it cannot be written, Node
// carries on without. NODE_DISABLE_COMPILE_CACHE=1 turns it off.
module.enableCompileCache(fileURLToPath(new URL('../.compile-cache/', import.meta.url)));
// In the repository Node runs the TypeScript sources directly (a dist/ left by a build is not
// used); the published package ships dist/ only, since Node strips no types under node_modules.
const source = new URL('../src/cli/main.ts', import.meta.url);
const { main } = await import(existsSync(source) ? source.href : '../dist/cli/main.js');
await main(process.argv);
