import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import { confirmPayment } from '../../domain/payments/confirm.ts';
import type { Services } from '../../services.ts';
import { paymentDeps } from '../../services.ts';
import { PaymentOutcomeOut, toOutcomeOut } from './outcome-schema.ts';
import { accountForClientKey } from './payment-deps.ts';

export const ConfirmIn = Type.Object(
  {
    pk: Type.String({ maxLength: 100 }),
    client_secret: Type.String({ maxLength: 200 }),
    mode: Type.Enum(['live', 'sandbox']),
    /** Compact JWE of the card (docs/widget-protocol.md); a 2048-bit RSA JWE of a card is ~600 bytes. */
    card: Type.String({ minLength: 1, maxLength: 4096 }),
  },
  { additionalProperties: false },
);

export function registerConfirm(app: FastifyInstance, services: Services): void {
  app.post<{ Body: Static<typeof ConfirmIn> }>(
    '/confirm',
    { schema: { body: ConfirmIn, response: { 200: PaymentOutcomeOut } } },
    async (request) => {
      const { pk, client_secret, mode, card } = request.body;
      const account = await accountForClientKey(services, pk);
      const outcome = await confirmPayment(paymentDeps(services), {
        account,
        clientSecret: client_secret,
        mode,
        card,
        clientIp: request.ip,
      });
      return toOutcomeOut(outcome, services.config.baseUrl);
    },
  );
}
