import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../domain/errors.ts';
import { newRequestId } from '../ids.ts';
import { ERROR_STATUS } from './error-statuses.ts';
import { errorBody } from './errors.ts';

/**
 * What Node's HTTP parser refuses before any route sees the request: a client too slow to
 * send its headers or body (OBOLUS_HEADERS_TIMEOUT_MS, OBOLUS_REQUEST_TIMEOUT_MS: 408),
 * headers too large (431), a request that is not HTTP (400). Answered in the §7.2 shape
 * like the router's 414, whatever the surface, since no route is known yet; then the
 * connection is closed. Fastify's own handler would answer another shape.
 */
export function clientErrorHandler(this: FastifyInstance, error: NodeJS.ErrnoException, socket: Socket): void {
  // A reset connection has nobody to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const refusal = clientError(error.code);
  this.log.debug({ code: error.code }, 'client error');
  const response = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  // A response already under way cannot take a second status line.
  if (socket.writable && !response?.headersSent) {
    const requestId = newRequestId();
    const body = JSON.stringify(errorBody(refusal, requestId));
    const status = ERROR_STATUS[refusal.code].status;
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

function clientError(code: string | undefined): ApiError {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return new ApiError('request_timeout', 'The request was not received in time; send it again without pausing.');
  }
  if (code === 'HPE_HEADER_OVERFLOW') {
    return new ApiError('headers_too_large', 'The request headers are too large.');
  }
  return new ApiError('body_invalid', 'The request could not be read as HTTP.');
}
