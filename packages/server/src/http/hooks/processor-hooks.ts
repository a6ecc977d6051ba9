import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import { applyProcessorNotice, type NoticeDeps } from '../../domain/payments/notices.ts';
import { NoticeRejected } from '../../domain/payments/ports.ts';
import { settleRefundNotice } from '../../domain/refund-notices.ts';
import type { Services } from '../../services.ts';
import { paymentDeps } from '../../services.ts';

const Params = Type.Object({ connector: Type.String({ maxLength: 32 }) });
/** Stripe's events are a few KB; a megabyte leaves room without inviting abuse. */
const BODY_LIMIT = 1024 * 1024;

/**
 * `POST {app_url}/hooks/<connector>`: signed notices from the live connector's acquirer
 * (Stripe: /hooks/stripe, Checkout.com: /hooks/checkout-com; docs/live.md). The signature is checked on the raw bytes, so
 * this scope reads every body as a Buffer. 2xx acknowledges (also duplicates and types we
 * ignore: the acquirer stops resending); 400 means forged or stale and changes nothing.
 */
export async function registerProcessorHooks(app: FastifyInstance, services: Services): Promise<void> {
  await app.register(async (hooks) => {
    hooks.removeAllContentTypeParsers();
    hooks.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: BODY_LIMIT }, (_req, body, done) =>
      done(null, body),
    );
    hooks.post<{ Params: Static<typeof Params> }>(
      '/hooks/:connector',
      { schema: { params: Params } },
      async (request, reply) => {
        const processor = services.processors.forMode('live');
        if (!processor?.readNotice || processor.name !== request.params.connector) {
          return reply.code(404).send({ error: 'No live connector of this name is configured.' });
        }
        const signature = request.headers[processor.noticeSignatureHeader ?? 'stripe-signature'];
        const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        try {
          const result = await applyProcessorNotice(noticeDeps(services), processor, raw, String(signature ?? ''));
          if (result === 'refused') {
            // Decision 0193: another amount, currency or payment than the attempt's. Acknowledged, nothing settled.
            request.log.warn(
              { connector: processor.name, result },
              'acquirer notice does not match its attempt: raised for review',
            );
          } else request.log.info({ connector: processor.name, result }, 'acquirer notice');
          // 503: the acquirer sends it again later (Stripe retries for 3 days), once the payment or refund is known.
          return reply.code(result === 'retry' ? 503 : 200).send({ received: true, result });
        } catch (error) {
          if (!(error instanceof NoticeRejected)) throw error;
          request.log.warn({ connector: processor.name }, 'acquirer notice refused: bad or stale signature');
          return reply.code(400).send({ error: error.message });
        }
      },
    );
  });
}

function noticeDeps(services: Services): NoticeDeps {
  const { repos } = services;
  return {
    ...paymentDeps(services),
    noticeLog: repos.processorEvents,
    chargebacks: repos.chargebacks,
    refundNotices: {
      settleRefundNotice: (processor, notice, now) => settleRefundNotice(repos.refunds, processor, notice, now),
    },
  };
}
