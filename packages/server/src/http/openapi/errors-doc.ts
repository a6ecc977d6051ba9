import { ERROR_GUIDE } from '../../domain/error-guide.ts';
import { ERROR_CODES } from '../../domain/errors.ts';
import { ERROR_STATUS } from '../error-statuses.ts';

/** Where `npm run errors-doc` writes the error reference; a test fails when it is stale. */
export const ERRORS_DOC = new URL('../../../../../docs/errors.md', import.meta.url);

const cell = (text: string) => text.replace(/\|/g, '\\|');

/** docs/errors.md, from the catalogue (domain/errors.ts), its statuses and its guide. */
export function errorsDoc(): string {
  const rows = ERROR_CODES.map((code) => {
    const { status, type } = ERROR_STATUS[code];
    const { meaning, action } = ERROR_GUIDE[code];
    return `| \`${code}\` | ${status} | ${type} | ${cell(meaning)} | ${cell(action)} |`;
  });
  return `# Errors

<!-- Generated from packages/server/src/domain/errors.ts, http/error-statuses.ts and
domain/error-guide.ts by \`npm run errors-doc\`. Do not edit by hand. -->

Every error of the merchant API is a non-2xx answer with this body (spec §7.2):

\`\`\`json
{"error":{"type":"invalid_request","code":"parameter_invalid","message":"amount must be an integer from 1 to 99999999.","param":"amount","request_id":"req_…"}}
\`\`\`

\`type\` is \`invalid_request\`, \`authentication\` or \`server\`; \`code\` is one of the table
below; \`param\`, when present, names the field at fault; \`request_id\` is also the
\`Request-Id\` header — quote it when asking for help. Program against \`code\`, not
\`message\`: messages may be reworded.

The transactions surface (\`{app_url}/api/v1/transactions…\`, spec §7.1) answers
\`{"error": "<message>"}\` with the same statuses: 401 for a missing or invalid key, 403 for an
inactive account, 404 for a missing or foreign transaction (byte for byte the same answer),
400 and 409 as below. The Node SDK turns both shapes into one \`ObolusError\`.

Retry with the same \`Idempotency-Key\` on 408, 409 \`idempotency_key_in_use\`, 429 and 500;
other errors will fail again until the request changes.

| code | HTTP | type | meaning | what to do |
|---|---|---|---|---|
${rows.join('\n')}
`;
}
