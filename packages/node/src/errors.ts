/** Every failure the SDK reports: an error answered by Obolus, or a request that never got an answer. */
export class ObolusError extends Error {
  /** `invalid_request`, `authentication`, `server`, or `connection` when no answer came. */
  readonly type: string;
  /** A code of docs/errors.md, e.g. `parameter_invalid`; `connection_failed` or `timeout` without an answer. */
  readonly code: string;
  /** The parameter at fault, when the API named one. */
  readonly param: string | undefined;
  /** The HTTP status; undefined when no answer came. */
  readonly status: number | undefined;
  /** The Request-Id of the answer: quote it when asking for help. */
  readonly requestId: string | undefined;

  constructor(fields: {
    type: string;
    code: string;
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
 * The transactions surface answers `{"error": "<message>"}` only (spec §7.1): its type and
 * code are those the API gives to the same status elsewhere (docs/errors.md).
 */
const PLAIN_CODES: Record<number, [type: string, code: string]> = {
  400: ['invalid_request', 'parameter_invalid'],
  401: ['authentication', 'api_key_invalid'],
  403: ['authentication', 'account_inactive'],
  404: ['invalid_request', 'resource_missing'],
  409: ['invalid_request', 'conflict'],
  413: ['invalid_request', 'body_too_large'],
  415: ['invalid_request', 'content_type_unsupported'],
  422: ['invalid_request', 'idempotency_key_reused'],
};

/** The ObolusError of an answer that is not a success, whatever its body. */
export function errorFromResponse(status: number, body: unknown, requestId: string | undefined): ObolusError {
  const error = (body as { error?: unknown } | undefined)?.error;
  if (error !== null && typeof error === 'object') {
    const e = error as Record<string, unknown>;
    return new ObolusError({
      type: String(e.type ?? 'invalid_request'),
      code: String(e.code ?? 'unknown'),
      message: String(e.message ?? `HTTP ${status}`),
      param: typeof e.param === 'string' ? e.param : undefined,
      status,
      requestId: typeof e.request_id === 'string' ? e.request_id : requestId,
    });
  }
  const [type, code] =
    PLAIN_CODES[status] ?? (status >= 500 ? ['server', 'internal_error'] : ['invalid_request', 'unknown']);
  return new ObolusError({
    type,
    code,
    message: typeof error === 'string' ? error : `HTTP ${status}`,
    status,
    requestId,
  });
}
