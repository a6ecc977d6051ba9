import { readFileSync } from 'node:fs';
import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { ERROR_CODES } from '../../domain/errors.ts';
import { IDEMPOTENCY_KEY_MAX_LENGTH } from '../../domain/idempotency.ts';
import { namedComponents, referenceNamedSchemas } from './components.ts';
import {
  ERROR_COMPONENTS,
  errorResponseComponents,
  errorResponseName,
  errorStatuses,
  type Surface,
} from './error-responses.ts';
import { type OperationInfo, TAGS } from './operation.ts';

const { version } = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

/** Only the merchant API is published: /embed/v1 is the widget's own (docs/widget-protocol.md). */
export const isPublicRoute = (url: string) => url.startsWith('/api/v1/') && url !== OPENAPI_PATH;
export const OPENAPI_PATH = '/api/v1/openapi.json';

const METHODS = ['get', 'post', 'delete', 'patch', 'put'] as const;
// biome-ignore lint/suspicious/noExplicitAny: plain JSON of OpenAPI's shape, walked and completed in place
type Json = Record<string, any>;
type Operation = Json;
type Document = Json;

// The description sits on the server: swagger-parser refuses one on the variable (valid 3.1 though).
const serverVariable = (name: string, where: string) => ({
  url: `{${name}}`,
  description: where,
  variables: { [name]: { default: 'http://localhost:4242' } },
});
const BASE_SERVER = serverVariable('base_url', 'OBOLUS_BASE_URL of the service');
const APP_SERVER = serverVariable('app_url', 'OBOLUS_APP_URL of the service (the same address by default)');

/** The transactions surface lives at {app_url} and answers `{"error": "…"}` (spec §4.2, §7.1). */
const surfaceOf = (path: string): Surface =>
  path.startsWith('/api/v1/transactions') || path.startsWith('/api/v1/sandbox/') ? 'plain' : 'api';

/**
 * Registers @fastify/swagger before any route, so that every route's TypeBox schemas become
 * the document, and answers GET /api/v1/openapi.json with it. Call it first in buildApp.
 */
export async function useOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Obolus API',
        version,
        license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
        description:
          'The merchant API of Obolus. Authenticate with your secret key as `Authorization: Bearer sk_…`. ' +
          'Amounts are integers in minor units (cents) except where a transaction record says major units. ' +
          'Every error code is explained in docs/errors.md.',
      },
      servers: [BASE_SERVER],
    },
    convertConstToEnum: false,
    transform: ({ schema, url }) => ({ schema: { ...schema, hide: !isPublicRoute(url) }, url }),
    transformObject: (documents) => completeDocument((documents as { openapiObject: Document }).openapiObject),
  });
  app.get(OPENAPI_PATH, { schema: { hide: true } }, async (_request, reply) => {
    reply.header('Cache-Control', 'no-cache');
    return app.swagger();
  });
}

/** The Bearer scheme, the Idempotency-Key parameter and the headers every operation refers to. */
const SHARED_COMPONENTS = {
  securitySchemes: {
    secretKey: { type: 'http', scheme: 'bearer', description: 'Your secret key, `sk_…`. Never use it in a browser.' },
  },
  parameters: {
    IdempotencyKey: {
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description:
        'Makes a POST safe to retry: for 24 hours the same key replays the first response byte for byte ' +
        '(with `Idempotent-Replayed: true`). Reusing it with another body is a 422; while the first request runs, a 409.',
      schema: { type: 'string', minLength: 1, maxLength: IDEMPOTENCY_KEY_MAX_LENGTH },
      example: 'order_1234_attempt_1',
    },
  },
  headers: {
    'Request-Id': { description: 'The id of this request, as in the error body.', schema: { type: 'string' } },
    'Obolus-Error-Code': {
      description:
        'On the transactions surface, whose error body is `{"error": "…"}`: the code of docs/errors.md the merchant API gives the same error.',
      schema: { type: 'string', enum: [...ERROR_CODES] },
    },
    'Retry-After': {
      description: 'Whole seconds to wait before retrying (the rate limits are per second).',
      schema: { type: 'integer', minimum: 1 },
    },
    'Idempotent-Replayed': {
      description: '`true` when this is the stored response of an earlier request with the same Idempotency-Key.',
      schema: { type: 'string', enum: ['true'] },
    },
  },
};

/** Adds what schemas cannot say: names, security, error bodies, headers and examples. */
export function completeDocument(document: Document): Document {
  const named = namedComponents();
  document.paths = referenceNamedSchemas(document.paths, named.names);
  document.tags = Object.entries(TAGS).map(([name, description]) => ({ name, description }));
  document.security = [{ secretKey: [] }];
  document.components = {
    ...document.components,
    ...SHARED_COMPONENTS,
    schemas: { ...document.components?.schemas, ...named.schemas, ...ERROR_COMPONENTS },
  };
  const errorUses = new Map<string, [number, Surface]>();
  for (const [path, item] of Object.entries(document.paths as Record<string, Record<string, Operation>>)) {
    const surface = surfaceOf(path);
    if (surface === 'plain') (item as Record<string, unknown>).servers = [APP_SERVER];
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      for (const status of completeOperation(operation, method.toUpperCase(), path, surface)) {
        errorUses.set(errorResponseName(status, surface), [status, surface]);
      }
    }
  }
  document.components.responses = errorResponseComponents(errorUses.values());
  return document;
}

/** Names, parameters and headers of one operation; returns the error statuses it refers to. */
function completeOperation(operation: Operation, method: string, path: string, surface: Surface): number[] {
  if (typeof operation.operationId !== 'string') {
    throw new Error(
      `${method} ${path} is public but declares no operation(): name it in its route file (http/openapi/operation.ts)`,
    );
  }
  const info: Omit<OperationInfo, 'operationId' | 'summary' | 'tag'> = operation['x-obolus-operation'] ?? {};
  delete operation['x-obolus-operation'];
  const parameters: Operation[] = operation.parameters ?? [];
  const input = {
    pathParams: parameters.some((p) => p.in === 'path'),
    query: parameters.some((p) => p.in === 'query'),
    cursor: parameters.some((p) => p.in === 'query' && p.name === 'starting_after'),
    body: operation.requestBody !== undefined,
  };
  if (method === 'POST') operation.parameters = [...parameters, { $ref: '#/components/parameters/IdempotencyKey' }];
  const json = operation.requestBody?.content?.['application/json'];
  if (json && info.requestExample) json.example = info.requestExample;
  for (const [status, response] of Object.entries(operation.responses as Record<string, Operation>)) {
    if (!status.startsWith('2')) continue;
    response.description = 'Success.';
    if (info.responseExample && response.content?.['application/json']) {
      response.content['application/json'].example = info.responseExample;
    }
    response.headers = {
      'Request-Id': { $ref: '#/components/headers/Request-Id' },
      ...(method === 'POST' ? { 'Idempotent-Replayed': { $ref: '#/components/headers/Idempotent-Replayed' } } : {}),
    };
  }
  const statuses = errorStatuses(method, input, info.errors);
  for (const status of statuses) {
    operation.responses[String(status)] = { $ref: `#/components/responses/${errorResponseName(status, surface)}` };
  }
  return statuses;
}
