// `npm run openapi`: writes docs/openapi.json from the route schemas (the only source of the
// document), then the Node SDK's wire types from that document.
import { writeFileSync } from 'node:fs';
import { API_TYPES } from '../packages/node/scripts/api-types.ts';
import { apiTypesOf } from '../packages/node/scripts/api-types-of.ts';
import { COMMITTED_DOCUMENT, generateOpenApiText } from '../packages/server/src/http/openapi/generate.ts';

const text = await generateOpenApiText();
writeFileSync(COMMITTED_DOCUMENT, text);
writeFileSync(API_TYPES, apiTypesOf(JSON.parse(text)));
console.log(`wrote ${COMMITTED_DOCUMENT.pathname} and ${API_TYPES.pathname}`);
