// `npm run errors-doc`: writes docs/errors.md from the error catalogue.
import { writeFileSync } from 'node:fs';
import { ERRORS_DOC, errorsDoc } from '../packages/server/src/http/openapi/errors-doc.ts';

writeFileSync(ERRORS_DOC, errorsDoc());
console.log(`wrote ${ERRORS_DOC.pathname}`);
