import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type Static, Type } from 'typebox';
import { ApiError } from '../../domain/errors.ts';
import { HOSTED_SESSION_TTL_MS, type HostedSession, startHostedCheckout } from '../../domain/hosted-checkout.ts';
import { formatMoney } from '../../money.ts';
import type { Services } from '../../services.ts';

/**
 * `POST /<productId>/checkout`: the hosted page's script gets the intent to pay, or the
 * receipt of the one this browser just paid. JSON only, so another site cannot post it
 * without a CORS preflight, which is never answered; the cookie that lets a reload reuse
 * the intent is HttpOnly and SameSite=Strict.
 */

const COOKIE = 'obolus_checkout';
const Body = Type.Object({ new_purchase: Type.Optional(Type.Boolean()) }, { additionalProperties: false });
const Receipt = Type.Object({
  amount: Type.Integer(),
  currency: Type.String(),
  amount_display: Type.String(),
  transaction_id: Type.String(),
  paid_at: Type.Integer(),
});
const SessionOut = Type.Object({
  payment_intent: Type.String(),
  client_secret: Type.Optional(Type.String()),
  receipt: Type.Optional(Receipt),
});
type SessionOut = Static<typeof SessionOut>;

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
      const { repos, clock, config } = services;
      const productId = `prod_${request.params.id}`;
      const { products, accounts, intents, checkoutStarts: starts } = repos;
      const deps = { products, accounts, intents, starts, clock, processors: services.processors };
      const session = await startHostedCheckout(deps, {
        productId,
        previousSecret: cookie(request),
        receiptMs: config.checkoutReceiptMs,
        newPurchase: request.body.new_purchase === true,
        clientAddress: request.ip,
      });
      if (!session) throw new ApiError('resource_missing', `No such product: '${productId}'`, 'id');
      reply.header('Cache-Control', 'no-store');
      if (session.kind === 'receipt') return receiptOf(session);
      // The cookie outlives the session by the receipt time, so a reload after paying late in the hour still sees it.
      const maxAge = Math.floor((HOSTED_SESSION_TTL_MS + config.checkoutReceiptMs) / 1000);
      const secure = config.baseUrl.startsWith('https:') ? '; Secure' : '';
      reply.header(
        'Set-Cookie',
        `${COOKIE}=${session.intent.clientSecret}; Path=/${productId}; Max-Age=${maxAge}; HttpOnly; SameSite=Strict${secure}`,
      );
      return { payment_intent: session.intent.id, client_secret: session.intent.clientSecret };
    },
  );
}

function receiptOf({ intent }: HostedSession): SessionOut {
  return {
    payment_intent: intent.id,
    receipt: {
      amount: intent.amount,
      currency: intent.currency,
      amount_display: formatMoney(intent.amount, intent.currency),
      transaction_id: intent.lastTransactionId ?? '',
      paid_at: intent.updatedAt,
    },
  };
}
