import type { Error as ErrorBody } from './api-types.ts';

/** A code of docs/errors.md: what Obolus answers (a union generated from its OpenAPI document). */
export type ErrorCode = ErrorBody['error']['code'];
/**
 * What the SDK says of itself: no answer came (`connection_failed`, `timeout`), a webhook's
 * signature does not verify, or an answer that is not Obolus's (`unknown`, e.g. a proxy's page).
 */
export type ClientErrorCode = 'connection_failed' | 'timeout' | 'webhook_signature_invalid' | 'unknown';
export type ErrorType = ErrorBody['error']['type'] | 'connection';

/** Every failure the SDK reports: an error answered by Obolus, or a request that never got an answer. */
export class ObolusError extends Error {
  /** `invalid_request`, `authentication`, `server`, or `connection` when no answer came. */
  readonly type: ErrorType;
  /** A code of docs/errors.md, e.g. `parameter_invalid`; or one of the SDK's own ({@link ClientErrorCode}). */
  readonly code: ErrorCode | ClientErrorCode;
  /** The parameter at fault, when the API named one. */
  readonly param: string | undefined;
  /** The HTTP status; undefined when no answer came. */
  readonly status: number | undefined;
  /** The Request-Id of the answer: quote it when asking for help. */
  readonly requestId: string | undefined;

  constructor(fields: {
    type: ErrorType;
    code: ErrorCode | ClientErrorCode;
    message: string;
    param?: string | undefined;
    status?: number | undefined;
    requestId?: string | undefined;
    cause?: unknown;
  }) {
    super(fields.message, fields.cause === undefined ? undefined : { cause: fields.cause });
    this.name = 'ObolusError';
    this.type = fields.type;
    this.code = fields.code;
    this.param = fields.param;
    this.status = fields.status;
    this.requestId = fields.requestId;
  }
}

/**
 * The transactions surface answers `{"error": "<message>"}` only (spec §7.1), with its code in
 * the `Obolus-Error-Code` header; without one (an older server, a proxy), the type and code
 * are those the API gives to the status elsewhere (docs/errors.md).
 */
const PLAIN_TYPES: Record<number, ErrorBody['error']['type']> = { 401: 'authentication', 403: 'authentication' };
const PLAIN_CODES: Partial<Record<number, ErrorCode>> = {
  400: 'parameter_invalid',
  401: 'api_key_invalid',
  403: 'account_inactive',
  404: 'resource_missing',
  413: 'body_too_large',
  415: 'content_type_unsupported',
  422: 'idempotency_key_reused',
};

const isErrorCode = (code: unknown): code is ErrorCode => typeof code === 'string' && /^[a-z_]+$/.test(code);

/** The ObolusError of an answer that is not a success, whatever its body. */
export function errorFromResponse(
  status: number,
  body: unknown,
  requestId: string | undefined,
  headerCode?: string,
): ObolusError {
  const error = (body as { error?: unknown } | undefined)?.error;
  if (error !== null && typeof error === 'object') {
    const e = error as Record<string, unknown>;
    return new ObolusError({
      type: (typeof e.type === 'string' ? e.type : 'invalid_request') as ErrorType,
      code: isErrorCode(e.code) ? e.code : 'unknown',
      message: String(e.message ?? `HTTP ${status}`),
      param: typeof e.param === 'string' ? e.param : undefined,
      status,
      requestId: typeof e.request_id === 'string' ? e.request_id : requestId,
    });
  }
  const type = status >= 500 ? 'server' : (PLAIN_TYPES[status] ?? 'invalid_request');
  const code = isErrorCode(headerCode)
    ? headerCode
    : (PLAIN_CODES[status] ?? (status >= 500 ? 'internal_error' : 'unknown'));
  return new ObolusError({
    type,
    code,
    message: typeof error === 'string' ? error : `HTTP ${status}`,
    status,
    requestId,
  });
}
