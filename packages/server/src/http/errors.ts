import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../domain/errors.ts';
import { isDatabaseUnavailable } from '../store/driver-errors.ts';
import { ERROR_STATUS } from './error-statuses.ts';
import { validationError } from './validation.ts';

const FASTIFY_ERRORS: Record<string, () => ApiError> = {
  FST_ERR_CTP_BODY_TOO_LARGE: () => new ApiError('body_too_large', 'The request body must be at most 64 KB.'),
  FST_ERR_CTP_INVALID_MEDIA_TYPE: () =>
    new ApiError('content_type_unsupported', 'Content-Type must be application/json.'),
  FST_ERR_CTP_EMPTY_JSON_BODY: () => new ApiError('body_invalid', 'The request body is empty; send a JSON object.'),
  FST_ERR_CTP_INVALID_JSON_BODY: () => new ApiError('body_invalid', 'The request body is not valid JSON.'),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () =>
    new ApiError('body_invalid', 'Content-Length does not match the body that was sent.'),
};

/** Whatever was thrown, as the error a caller may see. Unknown errors say nothing of their cause. */
export function toApiError(error: FastifyError | Error): ApiError {
  if (error instanceof ApiError) return error;
  const fastifyError = error as FastifyError;
  if (fastifyError.validation)
    return validationError(fastifyError.validation as never, fastifyError.validationContext ?? 'body');
  const known = fastifyError.code ? FASTIFY_ERRORS[fastifyError.code] : undefined;
  if (known) return known();
  if (isDatabaseUnavailable(error)) return databaseUnavailable();
  const status = fastifyError.statusCode ?? 500;
  if (status >= 400 && status < 500) return new ApiError('body_invalid', 'The request could not be read.');
  return new ApiError('internal_error', 'An unexpected error occurred on our side. Try again later.');
}

/** About a PostgreSQL restart; during a failover callers come back every 2 s until it is over. */
export const DATABASE_RETRY_AFTER_S = 2;

/**
 * The store could not be used (a restart, a failover, a full disk): a 503 the caller may
 * retry, never the driver's words (decision 0220). Load balancers drain the process meanwhile
 * through GET /readyz.
 */
export const databaseUnavailable = () =>
  new ApiError(
    'database_unavailable',
    'The service is briefly unavailable: it cannot reach its database. Try again in a few seconds.',
    undefined,
    DATABASE_RETRY_AFTER_S,
  );

/** What a failed request logs: a database that cannot be used is one line, not a stack each time. */
export function logFailure(request: FastifyRequest, error: ApiError, thrown: Error): void {
  if (error.code === 'database_unavailable') {
    const { code, message } = thrown as Error & { code?: string };
    request.log.error({ cause: { code, message } }, 'request failed: database unavailable');
  } else if (ERROR_STATUS[error.code].status >= 500) {
    request.log.error({ err: thrown }, 'request failed');
  }
}

export interface ErrorBody {
  error: { type: string; code: string; message: string; param?: string; request_id: string };
}

export function errorBody(error: ApiError, requestId: string): ErrorBody {
  return {
    error: {
      type: ERROR_STATUS[error.code].type,
      code: error.code,
      message: error.message,
      ...(error.param !== undefined ? { param: error.param } : {}),
      request_id: requestId,
    },
  };
}

export function sendApiError(request: FastifyRequest, reply: FastifyReply, thrown: Error): FastifyReply {
  const error = toApiError(thrown);
  const { status } = ERROR_STATUS[error.code];
  logFailure(request, error, thrown);
  if (error.code === 'rate_limited') reply.header('Retry-After', '60');
  if (error.retryAfterSeconds !== undefined) reply.header('Retry-After', String(error.retryAfterSeconds));
  return reply.code(status).send(errorBody(error, request.id));
}

/** The §7.2 error shape for everything in this scope, including unknown routes. */
export function useApiErrors(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => sendApiError(request, reply, error as Error));
  app.setNotFoundHandler((request, reply) =>
    sendApiError(
      request,
      reply,
      new ApiError('route_not_found', `Unrecognized request: ${request.method} ${request.url}`),
    ),
  );
}
