import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
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

function csrfMatches(sent: string, expected: string): boolean {
  const a = Buffer.from(sent);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Where a form may send the browser back to: a dashboard path, never elsewhere. */
export function backPath(text: string): string {
  return /^\/dashboard(\/[A-Za-z0-9_/-]*)?$/.test(text) ? text : '/dashboard';
}
