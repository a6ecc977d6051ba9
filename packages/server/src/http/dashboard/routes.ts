import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { FORM_TOKEN, oncePerToken } from '../../domain/dashboard/form-uses.ts';
import { ApiError } from '../../domain/errors.ts';
import type { Services } from '../../services.ts';
import { field, Refusal, type Signed, seeOther, signedOf } from './context.ts';

type Handler<P> = (
  signed: Signed,
  request: FastifyRequest<{ Params: P; Querystring: Record<string, string> }>,
  reply: FastifyReply,
) => Promise<unknown>;

/** A page that needs a session; without one the browser goes to the sign-in form. */
export function getPage<P = Record<string, never>>(scope: FastifyInstance, path: string, handler: Handler<P>): void {
  scope.get<{ Params: P; Querystring: Record<string, string> }>(path, async (request, reply) => {
    if (!request.dashboard) return seeOther(reply, '/dashboard');
    const body = await handler(signedOf(request), request, reply);
    if (typeof body === 'string') return reply.type('text/html; charset=utf-8').send(body);
    return body;
  });
}

/** A state-changing form: a session, and the session's CSRF token in the form. */
export function postAction<P = Record<string, never>>(scope: FastifyInstance, path: string, handler: Handler<P>): void {
  scope.post<{ Params: P; Querystring: Record<string, string> }>(path, async (request, reply) => {
    if (!request.dashboard) throw new Refusal(401, 'Your session has ended. Sign in again.');
    if (!csrfMatches(field(request, 'csrf'), request.dashboard.session.csrfToken)) {
      throw new Refusal(
        403,
        'This form is out of date or was not sent by the dashboard. Reload the page and try again.',
      );
    }
    const body = await handler(signedOf(request), request, reply);
    if (typeof body === 'string') return reply.type('text/html; charset=utf-8').send(body);
    return body;
  });
}

/** What a create form made: where a repeat of the form goes, and the page to answer now (else a redirect there). */
export interface Made {
  result: string;
  page?: string;
}

/**
 * A form that makes something (layout.ts createForm): its one-time token makes it once,
 * across processes; a second post of the same form is sent to what the first one made.
 */
export function postCreate<P = Record<string, never>>(
  scope: FastifyInstance,
  services: Services,
  path: string,
  make: (...args: Parameters<Handler<P>>) => Promise<Made>,
): void {
  postAction<P>(scope, path, async (signed, request, reply) => {
    const token = field(request, 'once');
    if (!FORM_TOKEN.test(token)) {
      throw new Refusal(
        403,
        'This form is out of date or was not sent by the dashboard. Reload the page and try again.',
      );
    }
    const scopeOf = { accountId: signed.account.id, sessionDigest: signed.session.digest, token };
    const use = await oncePerToken(
      services.repos.formUses,
      services.clock,
      scopeOf,
      async () => {
        const made = await make(signed, request, reply);
        return { value: made, result: made.result };
      },
      { refused: (error) => error instanceof ApiError || error instanceof Refusal },
    );
    if (use.first) return use.value.page ?? seeOther(reply, use.value.result);
    if ('busy' in use) {
      throw new Refusal(
        409,
        'This form was already sent, and what it did is not known yet. Look at the page it changes before sending it again.',
      );
    }
    return seeOther(reply, use.result);
  });
}

function csrfMatches(sent: string, expected: string): boolean {
  const a = Buffer.from(sent);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Where a form may send the browser back to: a dashboard path, never elsewhere. */
export function backPath(text: string): string {
  return /^\/dashboard(\/[A-Za-z0-9_/-]*)?$/.test(text) ? text : '/dashboard';
}
