#!/usr/bin/env node
// The one file that must run on any Node: it refuses old ones before loading the rest.
import { existsSync } from 'node:fs';

const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  console.error(
    `obolus needs Node.js 24 or newer (this is ${process.version}); run it with npx or npm scripts, which use the project's Node 24.`,
  );
  process.exit(1);
}
// In the repository Node runs the TypeScript sources directly; a published package ships dist/.
const built = new URL('../dist/cli/main.js', import.meta.url);
const { main } = await import(existsSync(built) ? built.href : '../src/cli/main.ts');
await main(process.argv);
