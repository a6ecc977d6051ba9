/**
 * The yardstick: a bare Fastify app with the same schema validation and serialization
 * as Obolus's routes, and no database, auth or logging. Obolus's figures are reported as
 * ratios to this one, measured in the same run on the same machine.
 */
import Fastify from 'fastify';
import { CreatePaymentIntentIn } from '../packages/server/src/http/api/v1/create-payment-intent.ts';
import { PaymentIntentOut } from '../packages/server/src/http/api/v1/payment-intent-schema.ts';
import { TransactionOut } from '../packages/server/src/http/api/v1/transactions/transaction-schema.ts';
import { validatorCompiler } from '../packages/server/src/http/validation.ts';

const app = Fastify({ logger: false });
app.setValidatorCompiler(validatorCompiler);

const intent = {
  id: '6ae6810023cc1d118fcc5c11',
  object: 'payment_intent',
  client_secret: 'pi_6ae6810023cc1d118fcc5c11_secret_0123456789abcdefABCDEFGH',
  status: 'requires_payment',
  created: 1795318804,
  expires_at: 1795923604,
  reference: null,
  externalid: null,
  descriptor: null,
  description: null,
  theme: null,
  metadata: {},
  product: null,
  last_transaction: null,
};

app.post(
  '/api/v1/payment-intents',
  { schema: { body: CreatePaymentIntentIn, response: { 200: PaymentIntentOut } } },
  async (request) => {
    const body = request.body as { amount: number; currency: string; mode?: string };
    return { ...intent, amount: body.amount, currency: 'USD', mode: body.mode ?? 'live' };
  },
);

let record: unknown = null;
app.put('/record', async (request) => {
  record = request.body;
  return { ok: true };
});
app.get('/api/v1/transactions/:id', { schema: { response: { 200: TransactionOut } } }, async () => record);

const port = Number(process.env.PORT ?? 0);
const address = await app.listen({ port, host: '127.0.0.1' });
process.stdout.write(`${address}\n`);
