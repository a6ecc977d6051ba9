// `npm run openapi`: writes docs/openapi.json from the route schemas (the only source of the document).
import { writeFileSync } from 'node:fs';
import { COMMITTED_DOCUMENT, generateOpenApiText } from '../packages/server/src/http/openapi/generate.ts';

writeFileSync(COMMITTED_DOCUMENT, await generateOpenApiText());
console.log(`wrote ${COMMITTED_DOCUMENT.pathname}`);
