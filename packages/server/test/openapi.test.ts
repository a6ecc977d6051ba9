import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import SwaggerParser from '@apidevtools/swagger-parser';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../src/domain/errors.ts';
import { completeDocument, isPublicRoute } from '../src/http/openapi/document.ts';
import { COMMITTED_DOCUMENT, generateOpenApiText } from '../src/http/openapi/generate.ts';
import { TAGS } from '../src/http/openapi/operation.ts';
import { ENGINES } from './support/engines.ts';
import { useTestServer } from './support/use-test-server.ts';

const run = promisify(execFile);
const committedText = () => readFileSync(COMMITTED_DOCUMENT, 'utf8');
type Operation = Record<string, any>;

function operations(document: any): [string, string, Operation][] {
  return Object.entries(document.paths as Record<string, Record<string, Operation>>).flatMap(([path, item]) =>
    ['get', 'post', 'delete']
      .filter((m) => item[m])
      .map((m): [string, string, Operation] => [m, path, item[m] as Operation]),
  );
}

describe('the OpenAPI document', () => {
  it('docs/openapi.json is what the route schemas generate (else run `npm run openapi`)', async () => {
    expect(committedText()).toBe(await generateOpenApiText());
  });

  it('validates with @apidevtools/swagger-parser', async () => {
    const api = (await SwaggerParser.validate(JSON.parse(committedText()))) as any;
    expect(api.openapi).toBe('3.1.0');
  });

  it('passes `redocly lint` with every rule of recommended-strict, offline', async () => {
    const result = await run('npx', ['redocly', 'lint', COMMITTED_DOCUMENT.pathname, '--format=stylish'], {
      cwd: new URL('../../..', import.meta.url).pathname,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    });
    expect(result.stdout + result.stderr).not.toMatch(/error|warning/i);
  }, 60_000);

  it('names every public operation from its route file (id, summary, one of the tags), and no internal one', () => {
    const document = JSON.parse(committedText());
    expect(Object.keys(document.paths).every((path) => isPublicRoute(path))).toBe(true);
    for (const [method, path, op] of operations(document)) {
      expect(op.operationId, `${method} ${path}`).toMatch(/^[a-z][A-Za-z]+$/);
      expect(op.summary.length, `${method} ${path}`).toBeGreaterThan(10);
      expect(Object.keys(TAGS), `${method} ${path}`).toContain(op.tags[0]);
      expect(Object.keys(op).filter((key) => key.startsWith('x-'))).toEqual([]);
    }
    const ids = operations(document).map(([, , op]) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(document.tags.map((tag: { name: string }) => tag.name)).toEqual(Object.keys(TAGS));
  });

  it('refuses to publish a public route that declares no operation(), instead of guessing its name and tag', () => {
    const document = { paths: { '/api/v1/gadgets': { get: { responses: { 200: { description: 'ok' } } } } } };
    expect(() => completeDocument(document)).toThrow(/GET \/api\/v1\/gadgets is public but declares no operation\(\)/);
  });

  it('documents the Bearer scheme, Idempotency-Key on every POST, and the error body of each surface', () => {
    const document = JSON.parse(committedText());
    expect(document.components.securitySchemes.secretKey).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(document.security).toEqual([{ secretKey: [] }]);
    for (const [method, path, op] of operations(document)) {
      const params = (op.parameters ?? []).map((p: Operation) => p.$ref ?? p.name);
      expect(params.includes('#/components/parameters/IdempotencyKey'), `${method} ${path}`).toBe(method === 'post');
      const plain = path.startsWith('/api/v1/transactions') || path.startsWith('/api/v1/sandbox/');
      for (const status of ['401', '403', '500']) {
        expect(op.responses[status].$ref).toBe(`#/components/responses/${plain ? 'PlainError' : 'Error'}${status}`);
      }
      if (path.includes('{')) expect(op.responses['404'], `${method} ${path}`).toBeDefined();
    }
    const transaction = document.paths['/api/v1/transactions/{id}'];
    expect(transaction.servers[0].url).toBe('{app_url}');
    expect(document.components.responses.PlainError404.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/PlainError',
    });
    expect(document.components.schemas.Error.properties.error.properties.code.enum).toEqual([...ERROR_CODES]);
  });
});

describe.each(ENGINES)('GET /api/v1/openapi.json (%s)', (engine) => {
  const { t } = useTestServer(engine);

  it('serves the committed document to anyone, no key needed', async () => {
    const res = await t.call('GET', '/api/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.json).toEqual(JSON.parse(committedText()));
  });
});
