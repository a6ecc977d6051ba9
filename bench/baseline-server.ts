/**
 * The yardstick: a bare Fastify app with the same schema validation and serialization
 * as Obolus's routes, and no database, auth or logging. Obolus's figures are reported as
 * ratios to this one, measured in the same run on the same machine. The records it answers
 * are real ones, copied from Obolus by the bench (PUT /record/:kind) before the load starts.
 */
import Fastify from 'fastify';
import { CreatePaymentIntentIn } from '../packages/server/src/http/api/v1/create-payment-intent.ts';
import { PaymentIntentOut } from '../packages/server/src/http/api/v1/payment-intent-schema.ts';
import {
  ListTransactionsQuery,
  TransactionListOut,
} from '../packages/server/src/http/api/v1/transactions/list-transactions.ts';
import { TransactionOut } from '../packages/server/src/http/api/v1/transactions/transaction-schema.ts';
import { ConfirmIn } from '../packages/server/src/http/embed/confirm.ts';
import { PaymentOutcomeOut } from '../packages/server/src/http/embed/outcome-schema.ts';
import { validatorCompiler } from '../packages/server/src/http/validation.ts';

const app = Fastify({ logger: false });
app.setValidatorCompiler(validatorCompiler);

const records: Record<string, unknown> = {};
app.put<{ Params: { kind: string } }>('/record/:kind', async (request) => {
  records[request.params.kind] = request.body;
  return { ok: true };
});

app.post(
  '/api/v1/payment-intents',
  { schema: { body: CreatePaymentIntentIn, response: { 200: PaymentIntentOut } } },
  async (request) => {
    const body = request.body as { amount: number; mode?: string };
    return { ...(records.intent as object), amount: body.amount, mode: body.mode ?? 'live' };
  },
);
app.get('/api/v1/payment-intents/:id', { schema: { response: { 200: PaymentIntentOut } } }, async () => records.intent);
app.get('/api/v1/transactions/:id', { schema: { response: { 200: TransactionOut } } }, async () => records.transaction);
app.get(
  '/api/v1/transactions',
  { schema: { querystring: ListTransactionsQuery, response: { 200: TransactionListOut } } },
  async () => records.list,
);
app.post(
  '/embed/v1/confirm',
  { schema: { body: ConfirmIn, response: { 200: PaymentOutcomeOut } } },
  async () => records.outcome,
);

const port = Number(process.env.PORT ?? 0);
const address = await app.listen({ port, host: '127.0.0.1' });
process.stdout.write(`${address}\n`);
// An orderly exit on SIGTERM, so that `--cpu-prof` writes the baseline's profile too.
process.once('SIGTERM', () => {
  app.close().then(() => process.exit(0));
});
