// Writes the SDK's wire types (src/api-types.ts) from docs/openapi.json; `npm run openapi` runs it.
import { readFileSync, writeFileSync } from 'node:fs';
import { apiTypesOf } from './api-types-of.ts';

const DOCUMENT = new URL('../../../docs/openapi.json', import.meta.url);
export const API_TYPES = new URL('../src/api-types.ts', import.meta.url);

if (import.meta.main) {
  writeFileSync(API_TYPES, apiTypesOf(JSON.parse(readFileSync(DOCUMENT, 'utf8'))));
  console.log(`wrote ${API_TYPES.pathname}`);
}
