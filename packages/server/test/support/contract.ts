import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

/**
 * Contract check of the shared test client: every response a test receives from the merchant
 * API must be one the committed OpenAPI document (docs/openapi.json) describes — a documented
 * status, and a body valid against its schema. A failure names the operation and the mismatch;
 * after changing a route, `npm run openapi` brings the document up to date.
 */
type Json = Record<string, any>;

const DOCUMENT_URL = new URL('../../../../docs/openapi.json', import.meta.url);
let loaded: { document: Json; ajv: Ajv2020; templates: [RegExp, string][] } | undefined;

function contract() {
  if (loaded) return loaded;
  const document = JSON.parse(readFileSync(DOCUMENT_URL, 'utf8')) as Json;
  // strict off: the document also holds OpenAPI words (example, in, …) that are not JSON Schema.
  const ajv = addFormats.default(new Ajv2020({ strict: false, allErrors: false }));
  ajv.addSchema(document, 'openapi');
  const templates = Object.keys(document.paths).map((path): [RegExp, string] => [
    new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`),
    path,
  ]);
  loaded = { document, ajv, templates };
  return loaded;
}

const isPlainSurface = (path: string) => path.startsWith('/api/v1/transactions') || path.startsWith('/api/v1/sandbox/');

function check(schemaPointer: string, body: unknown, what: string): void {
  const { ajv } = contract();
  const validate = ajv.getSchema(`openapi#${schemaPointer}`);
  if (!validate) throw new Error(`contract: no schema at ${schemaPointer}`);
  if (!validate(body)) {
    throw new Error(`contract: ${what} does not match docs/openapi.json: ${ajv.errorsText(validate.errors)}`);
  }
}

const pointerEscape = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

/** Throws when a response of the public API is not one the document describes. */
export function assertResponseInContract(method: string, url: string, status: number, text: string): void {
  const path = new URL(url, 'http://x').pathname;
  if (!path.startsWith('/api/v1/') || path === '/api/v1/openapi.json' || method === 'HEAD') return;
  const { document, templates } = contract();
  const what = `${method} ${path} -> ${status}`;
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    throw new Error(`contract: ${what} answered a body that is not JSON: ${text.slice(0, 80)}`);
  }
  const template = templates.find(([pattern]) => pattern.test(path))?.[1];
  const operation = template ? document.paths[template][method.toLowerCase()] : undefined;
  if (!template || !operation) {
    if (status < 400) {
      throw new Error(
        `contract: ${what} succeeded but docs/openapi.json has no such operation: name it in ` +
          'its route file with operation() (src/http/openapi/operation.ts) and run `npm run openapi`',
      );
    }
    // No such operation: the answer must still be the surface's error body.
    check(`/components/schemas/${isPlainSurface(path) ? 'PlainError' : 'Error'}`, body, what);
    return;
  }
  let response = operation.responses[String(status)];
  if (!response) throw new Error(`contract: ${what} is not a documented status of ${operation.operationId}`);
  let pointer = `/paths/${pointerEscape(template)}/${method.toLowerCase()}/responses/${status}`;
  if (response.$ref) {
    pointer = response.$ref.slice(1);
    response = document.components.responses[pointer.split('/').pop() as string];
  }
  if (response.content?.['application/json']) check(`${pointer}/content/application~1json/schema`, body, what);
}

/** A fetch that checks every answer of the merchant API against the document, as the test client does. */
export const contractFetch: typeof fetch = async (input, init) => {
  const response = await fetch(input, init);
  const url = new URL(String(input instanceof Request ? input.url : input));
  assertResponseInContract(init?.method ?? 'GET', url.pathname, response.status, await response.clone().text());
  return response;
};
