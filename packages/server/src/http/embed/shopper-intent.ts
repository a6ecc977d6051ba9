import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import type { PaymentIntent } from '../../domain/intents.ts';
import { intentForSecret } from '../../domain/payments/confirm.ts';
import { TX_STATUS } from '../../domain/transactions.ts';
import type { Services } from '../../services.ts';
import { paymentDeps } from '../../services.ts';
import { challengeUrl } from './outcome-schema.ts';
import { accountForClientKey } from './payment-deps.ts';

const ShopperIntentIn = Type.Object(
  { pk: Type.String({ maxLength: 100 }), client_secret: Type.String({ maxLength: 200 }) },
  { additionalProperties: false },
);

/** Only what a shopper may see: no metadata or externalid; the order reference, which the shopper may quote (issue 29). */
const ShopperIntentOut = Type.Object({
  id: Type.String(),
  amount: Type.Integer(),
  currency: Type.String(),
  mode: Type.String(),
  status: Type.String(),
  merchant_name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  /** The merchant's order reference, shown on the success view. */
  reference: Type.Union([Type.String(), Type.Null()]),
  theme: Type.Union([Type.String(), Type.Null()]),
  /** Our clock (ms): the widget dates its card ciphertext by it, not by the shopper's clock. */
  server_time: Type.Integer(),
  /** The latest attempt: the paid one of a succeeded intent, the one under way of a processing one. */
  transaction_id: Type.Union([Type.String(), Type.Null()]),
  /** While that attempt waits on 3-D Secure: where a reloaded widget resumes it. */
  challenge_url: Type.Optional(Type.String()),
});
type ShopperIntentOut = Static<typeof ShopperIntentOut>;

/** Statuses the 7-day window ends (a paid, authorized or canceled intent stays what it is). */
const UNFINISHED: readonly string[] = ['requires_payment', 'failed', 'processing', 'expired'];

export function registerShopperIntent(app: FastifyInstance, services: Services): void {
  app.post<{ Body: Static<typeof ShopperIntentIn> }>(
    '/intent',
    { schema: { body: ShopperIntentIn, response: { 200: ShopperIntentOut } } },
    async (request) => {
      const account = await accountForClientKey(services, request.body.pk);
      const intent = await intentForSecret(paymentDeps(services), account, request.body.client_secret);
      const expired = UNFINISHED.includes(intent.status) && intent.expiresAt <= services.clock.now();
      const out: ShopperIntentOut = {
        id: intent.id,
        amount: intent.amount,
        currency: intent.currency,
        mode: intent.mode,
        status: expired ? 'expired' : intent.status,
        merchant_name: account.name,
        description: intent.description,
        reference: intent.reference,
        theme: intent.theme,
        server_time: services.clock.now(),
        transaction_id: intent.lastTransactionId,
      };
      const token = await openChallengeOf(services, intent);
      if (token && !expired) out.challenge_url = challengeUrl(services.config.baseUrl, token);
      return out;
    },
  );
}

async function openChallengeOf(services: Services, intent: PaymentIntent): Promise<string | null> {
  if (intent.status !== 'processing' || !intent.lastTransactionId) return null;
  const tx = await services.repos.transactions.find(intent.accountId, intent.lastTransactionId);
  return tx?.status === TX_STATUS.pending ? tx.challengeToken : null;
}
