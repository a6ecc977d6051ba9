import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import { intentForSecret } from '../../domain/payments/confirm.ts';
import { paymentDeps } from '../../services.ts';
import type { Services } from '../services.ts';
import { accountForClientKey } from './payment-deps.ts';

const ShopperIntentIn = Type.Object(
  { pk: Type.String({ maxLength: 100 }), client_secret: Type.String({ maxLength: 200 }) },
  { additionalProperties: false },
);

/** Only what a shopper may see: no metadata, reference or externalid. */
const ShopperIntentOut = Type.Object({
  id: Type.String(),
  amount: Type.Integer(),
  currency: Type.String(),
  mode: Type.String(),
  status: Type.String(),
  merchant_name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  theme: Type.Union([Type.String(), Type.Null()]),
  /** Our clock (ms): the widget dates its card ciphertext by it, not by the shopper's clock. */
  server_time: Type.Integer(),
});

export function registerShopperIntent(app: FastifyInstance, services: Services): void {
  app.post<{ Body: Static<typeof ShopperIntentIn> }>(
    '/intent',
    { schema: { body: ShopperIntentIn, response: { 200: ShopperIntentOut } } },
    async (request) => {
      const account = await accountForClientKey(services, request.body.pk);
      const intent = await intentForSecret(paymentDeps(services), account, request.body.client_secret);
      const expired = intent.status !== 'succeeded' && intent.expiresAt <= services.clock.now();
      return {
        id: intent.id,
        amount: intent.amount,
        currency: intent.currency,
        mode: intent.mode,
        status: expired ? 'expired' : intent.status,
        merchant_name: account.name,
        description: intent.description,
        theme: intent.theme,
        server_time: services.clock.now(),
      };
    },
  );
}
