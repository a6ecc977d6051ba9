import { Type } from 'typebox';
import { ERROR_CODES, type ErrorCode } from '../../domain/errors.ts';
import { PlainErrorOut } from '../api/v1/transactions/transaction-schema.ts';
import { ERROR_STATUS } from '../error-statuses.ts';

/** The §7.2 error body, as http/errors.ts writes it. */
export const ApiErrorOut = Type.Object({
  error: Type.Object({
    type: Type.Enum(['invalid_request', 'authentication', 'server']),
    code: Type.Enum([...ERROR_CODES]),
    message: Type.String(),
    param: Type.Optional(Type.String({ description: 'The parameter at fault, e.g. `amount` or `metadata[size]`' })),
    request_id: Type.String({ description: 'Also in the Request-Id header: quote it when asking for help' }),
  }),
});

export const ERROR_COMPONENTS = { Error: ApiErrorOut, PlainError: PlainErrorOut };

/** Which surface an operation belongs to decides its error body (docs/decisions/0010). */
export type Surface = 'api' | 'plain';

const MEANING: Record<number, string> = {
  400: 'The request is invalid: `error.code` says how and `error.param` names the field.',
  401: 'The secret key is missing or invalid.',
  402: 'The card was declined.',
  403: 'The account is not active.',
  404: 'No such object on this account (a foreign id answers exactly as a missing one).',
  409: 'Conflict: the same Idempotency-Key is still being processed, or the object is not in a state that allows this.',
  413: 'The request body is larger than 64 KB.',
  414: 'The URL is too long.',
  415: 'Content-Type must be application/json.',
  408: 'The request arrived too slowly and the connection was closed; nothing was done. Send it again.',
  422: 'This Idempotency-Key was already used with another request.',
  429: "Too many requests in one second, with this account's keys or from this network: wait `Retry-After` seconds.",
  500: 'Unexpected error on our side; nothing about it is shown. Retry later.',
  503: 'The service cannot reach its database for a moment (a restart, a failover): wait `Retry-After` seconds and retry, with the same Idempotency-Key for a POST.',
};

/** The statuses every operation of its kind can answer with (the rest each route names in its operation()). */
export function errorStatuses(
  method: string,
  input: { pathParams: boolean; query: boolean; cursor: boolean; body: boolean },
  extra: number[] = [],
): number[] {
  // Every merchant API request counts against the rate limits (decision 0150), a client too
  // slow to send it is cut off with a 408, and every one reads the database (503 while it is
  // away, decision 0220).
  const statuses = new Set([401, 403, 408, 429, 500, 503, ...extra]);
  if (input.pathParams) statuses.add(414);
  // A cursor names an object too: one of another account is the 404 of a missing one.
  if (input.pathParams || input.cursor) statuses.add(404);
  if (input.pathParams || input.query || input.body || method === 'POST') statuses.add(400);
  if (method === 'POST') for (const status of [409, 413, 415, 422]) statuses.add(status);
  return [...statuses].sort((a, b) => a - b);
}

/**
 * The codes of the catalogue that answer with this status, as the document lists them. Of the
 * 429s only `rate_limit` comes from the merchant API; the others are the widget's and the
 * hosted page's.
 */
export const codesOf = (status: number): ErrorCode[] =>
  status === 429 ? ['rate_limit'] : ERROR_CODES.filter((code) => ERROR_STATUS[code].status === status);

function exampleCode(status: number): ErrorCode {
  const code = codesOf(status)[0] ?? 'route_not_found';
  return status === 404 ? 'resource_missing' : code;
}

/** The name of the shared response of one status on one surface, e.g. `Error404` or `PlainError404`. */
export const errorResponseName = (status: number, surface: Surface) =>
  `${shapeOf(status, surface) === 'api' ? 'Error' : 'PlainError'}${status}`;

/** An overlong URL (the router) and a slow request (Node's parser) are answered before any surface sees them, always in the §7.2 shape. */
const shapeOf = (status: number, surface: Surface): Surface => (status === 414 || status === 408 ? 'api' : surface);

/** Every error response the operations refer to, as `components.responses`. */
export function errorResponseComponents(uses: Iterable<[number, Surface]>): Record<string, unknown> {
  const entries = [...uses].map(([status, surface]) => [
    errorResponseName(status, surface),
    errorResponse(status, surface),
  ]);
  return Object.fromEntries(entries.sort(([a], [b]) => String(a).localeCompare(String(b))));
}

function errorResponse(status: number, onSurface: Surface): Record<string, unknown> {
  const surface = shapeOf(status, onSurface);
  const code = exampleCode(status);
  const message = MEANING[status] ?? 'Error.';
  const example =
    surface === 'plain'
      ? { error: message }
      : { error: { type: ERROR_STATUS[code].type, code, message, request_id: 'req_3f1c9a0e5b7d2c4a' } };
  const codes = codesOf(status)
    .map((c) => `\`${c}\``)
    .join(', ');
  return {
    description: surface === 'api' && codes ? `${message} Codes: ${codes}.` : message,
    headers: {
      'Request-Id': { $ref: '#/components/headers/Request-Id' },
      ...(surface === 'plain' ? { 'Obolus-Error-Code': { $ref: '#/components/headers/Obolus-Error-Code' } } : {}),
      ...(status === 429 || status === 503 ? { 'Retry-After': { $ref: '#/components/headers/Retry-After' } } : {}),
    },
    content: {
      'application/json': {
        schema: { $ref: surface === 'api' ? '#/components/schemas/Error' : '#/components/schemas/PlainError' },
        example,
      },
    },
  };
}
