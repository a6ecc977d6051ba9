import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../../../domain/errors.ts';
import { ERROR_STATUS } from '../../../error-statuses.ts';
import { logFailure, toApiError } from '../../../errors.ts';

/**
 * The transactions surface answers errors as `{"error": "<message>"}` (spec §4.2, §7.1),
 * not the intents API's `{error:{type,code,…}}`. Statuses come from the same table:
 * 401 missing or invalid key, 403 inactive account, 404 missing or foreign id, 400 bad input.
 * The code the merchant API would give rides in `Obolus-Error-Code`, so an SDK can tell
 * one 409 from another without reading the message (decision 0284).
 */
export function sendPlainError(request: FastifyRequest, reply: FastifyReply, thrown: Error): FastifyReply {
  const error = toApiError(thrown);
  const { status } = ERROR_STATUS[error.code];
  logFailure(request, error, thrown);
  reply.header('Obolus-Error-Code', error.code);
  if (error.code === 'rate_limited') reply.header('Retry-After', '60');
  if (error.retryAfterSeconds !== undefined) reply.header('Retry-After', String(error.retryAfterSeconds));
  return reply.code(status).send({ error: error.message });
}

export function usePlainErrors(scope: FastifyInstance): void {
  scope.setErrorHandler((error, request, reply) => sendPlainError(request, reply, error as Error));
}

/** Unknown paths under /api/v1/transactions get the same shape as the rest of the surface. */
export function usePlainNotFound(scope: FastifyInstance): void {
  scope.setNotFoundHandler((request, reply) =>
    sendPlainError(
      request,
      reply,
      new ApiError('route_not_found', `Unrecognized request: ${request.method} ${request.url}`),
    ),
  );
}
