import type { FastifyInstance, FastifyReply, FastifyRequest, onSendHookHandler, preHandlerHookHandler } from 'fastify';
import { stringify } from 'safe-stable-stringify';
import type { Clock } from '../../clock.ts';
import { ApiError } from '../../domain/errors.ts';
import { IDEMPOTENCY_KEY_MAX_LENGTH, type IdempotencyStore, type IdempotentWrite } from '../../domain/idempotency.ts';
import { sha256Hex } from '../../ids.ts';
import { accountOf } from './secret-key-auth.ts';

declare module 'fastify' {
  interface FastifyRequest {
    idempotencyKey: string | null;
    /** The claimed key was taken over from a request that died holding it. */
    idempotencyRecovered: boolean;
    /** What a replay of this request answers, when not the response itself (a response carrying a secret). */
    replayBody: string | null;
  }
}

/**
 * A response that shows a secret once is not kept for replays (decision 0073): a replay
 * answers `body` instead, the same resource without the secret.
 */
export function replayWithout(request: FastifyRequest, body: unknown): void {
  request.replayBody = JSON.stringify(body);
}

/**
 * Idempotency-Key on POST (decision 0004): the first response is stored and replayed byte for
 * byte with Idempotent-Replayed: true; another request with the same key gets 422; a
 * request while the first is still running gets 409. Failures of validation are not stored
 * (the request never started), nor are 5xx (the caller should be able to try again).
 */
export function useIdempotency(app: FastifyInstance, store: IdempotencyStore, clock: Clock): void {
  app.decorateRequest('idempotencyKey', null);
  app.decorateRequest('replayBody', null);
  app.decorateRequest('idempotencyRecovered', false);
  // `done`-style: most writes carry no key, and pass without a promise each (decision 0184).
  const preHandler: preHandlerHookHandler = (request, reply, done) => {
    if (request.headers['idempotency-key'] === undefined) return done();
    // A replay is answered here: the route is not run, so `done` is not called.
    claim(store, clock, request, reply).then((answered) => answered !== reply && done(), done);
  };
  const onSend: onSendHookHandler<unknown> = (request, reply, payload, done) => {
    const key = request.idempotencyKey;
    if (key === null) return done(null, payload);
    const accountId = accountOf(request).id;
    if (reply.statusCode >= 500) {
      // Freeing the key may fail as the request did (the database is away): the claim then runs
      // out by itself, and a retry takes it over (store.claim's `recovered`).
      store.release(accountId, key).then(
        () => done(null, payload),
        (error: Error) => {
          request.log.warn({ err: error }, 'Idempotency-Key not released after a failed request');
          done(null, payload);
        },
      );
      return;
    }
    store.complete(accountId, key, reply.statusCode, request.replayBody ?? String(payload)).then(
      () => done(null, payload),
      (error: Error) => done(error),
    );
  };
  // On the POST routes of the scope only: a read never pays for two hooks that do nothing.
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (!methods.includes('POST')) return;
    route.preHandler = [preHandler, ...hooksOf(route.preHandler)];
    route.onSend = [...hooksOf(route.onSend), onSend];
  });
}

const hooksOf = <T>(hooks: T | T[] | undefined): T[] =>
  hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks];

/** The key a write of this request is made under, for the use cases that store it with what they make. */
export function idempotentWrite(request: FastifyRequest): IdempotentWrite | undefined {
  const key = request.idempotencyKey;
  return key === null ? undefined : { key, recovered: request.idempotencyRecovered };
}

function requestHash(request: FastifyRequest): string {
  return sha256Hex(`${request.method} ${request.url}\n${stringify(request.body ?? null)}`);
}

async function claim(store: IdempotencyStore, clock: Clock, request: FastifyRequest, reply: FastifyReply) {
  const key = request.headers['idempotency-key'];
  if (key === undefined) return;
  if (typeof key !== 'string' || key.length === 0 || key.length > IDEMPOTENCY_KEY_MAX_LENGTH) {
    throw new ApiError(
      'idempotency_key_invalid',
      `Idempotency-Key must be one header of 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} characters.`,
      'Idempotency-Key',
    );
  }
  const result = await store.claim(accountOf(request).id, key, requestHash(request), clock.now());
  switch (result.kind) {
    case 'claimed':
      request.idempotencyKey = key;
      request.idempotencyRecovered = result.recovered === true;
      return;
    case 'mismatch':
      throw new ApiError(
        'idempotency_key_reused',
        'This Idempotency-Key was already used with a different request. Use a new key for a new request.',
        'Idempotency-Key',
      );
    case 'in_flight':
      throw new ApiError(
        'idempotency_key_in_use',
        'A request with this Idempotency-Key is still being processed. Retry once it has finished.',
        'Idempotency-Key',
      );
    case 'replay':
      return reply
        .code(result.statusCode)
        .header('Idempotent-Replayed', 'true')
        .type('application/json; charset=utf-8')
        .send(result.body);
  }
}
