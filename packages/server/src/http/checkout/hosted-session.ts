import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type Static, Type } from 'typebox';
import { ApiError } from '../../domain/errors.ts';
import { HOSTED_SESSION_TTL_MS, startHostedCheckout } from '../../domain/hosted-checkout.ts';
import type { Services } from '../services.ts';

/**
 * `POST /<productId>/checkout`: the hosted page's script gets the intent to pay. JSON only,
 * so another site cannot post it without a CORS preflight, which is never answered; the
 * cookie that lets a reload reuse the intent is HttpOnly and SameSite=Strict.
 */

const COOKIE = 'obolus_checkout';
const Body = Type.Object({}, { additionalProperties: false });
const SessionOut = Type.Object({ payment_intent: Type.String(), client_secret: Type.String() });

function cookie(request: FastifyRequest): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === COOKIE) return value.join('=');
  }
  return undefined;
}

export function registerHostedSession(app: FastifyInstance, services: Services): void {
  app.post<{ Params: { id: string }; Body: Static<typeof Body> }>(
    '/prod_:id/checkout',
    { schema: { body: Body, response: { 200: SessionOut } } },
    async (request, reply) => {
      const { repos, clock } = services;
      const productId = `prod_${request.params.id}`;
      const deps = { products: repos.products, accounts: repos.accounts, intents: repos.intents, clock };
      const session = await startHostedCheckout(deps, productId, cookie(request));
      if (!session) throw new ApiError('resource_missing', `No such product: '${productId}'`, 'id');
      const secure = services.config.baseUrl.startsWith('https:') ? '; Secure' : '';
      const maxAge = Math.floor(HOSTED_SESSION_TTL_MS / 1000);
      reply
        .header('Cache-Control', 'no-store')
        .header(
          'Set-Cookie',
          `${COOKIE}=${session.intent.clientSecret}; Path=/${productId}; Max-Age=${maxAge}; HttpOnly; SameSite=Strict${secure}`,
        );
      return { payment_intent: session.intent.id, client_secret: session.intent.clientSecret };
    },
  );
}
