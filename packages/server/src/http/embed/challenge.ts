import type { FastifyInstance, FastifyReply } from 'fastify';
import { type Static, Type } from 'typebox';
import { challengeView, completeChallenge } from '../../domain/payments/challenge.ts';
import type { Services } from '../../services.ts';
import { paymentDeps } from '../../services.ts';
import { sendErrorPage } from '../checkout/error-page.ts';
import { challengePage } from './challenge-page.ts';
import { challengeReturnPage, liveChallengePage } from './live-challenge-page.ts';
import { PaymentOutcomeOut, toOutcomeOut } from './outcome-schema.ts';

const Params = Type.Object({ token: Type.String({ maxLength: 64 }) });
const AnswerIn = Type.Object(
  { code: Type.Optional(Type.String({ maxLength: 32 })), cancel: Type.Optional(Type.Boolean()) },
  { additionalProperties: false },
);

/** The sandbox 3-D Secure ACS: a page for the shopper, and the answer that finishes the attempt. */
export function registerChallenge(app: FastifyInstance, services: Services): void {
  app.get<{ Params: Static<typeof Params> }>(
    '/challenge/:token',
    { schema: { params: Params } },
    async (request, reply) => {
      // Only the widget frames this page, from our own origin; a browser says who asked.
      const site = request.headers['sec-fetch-site'];
      if (site !== undefined && site !== 'same-origin') {
        return sendErrorPage(request, reply, {
          status: 403,
          title: 'This page opens inside the payment form',
          message: 'Go back to the shop’s checkout to confirm this payment with your bank.',
        });
      }
      const view = await challengeView(paymentDeps(services), request.params.token);
      const { redirectUrl } = view;
      const page = redirectUrl && view.open ? liveChallengePage({ ...view, redirectUrl }) : challengePage(view);
      return sendChallengePage(reply, page);
    },
  );

  // A live issuer's page sends the shopper back here (the return_url given to the acquirer).
  app.get<{ Params: Static<typeof Params> }>(
    '/challenge/:token/return',
    { schema: { params: Params } },
    async (request, reply) => {
      const outcome = await completeChallenge(paymentDeps(services), request.params.token, {});
      return sendChallengePage(reply, challengeReturnPage(toOutcomeOut(outcome, services.config.baseUrl)));
    },
  );

  app.post<{ Params: Static<typeof Params>; Body: Static<typeof AnswerIn> }>(
    '/challenge/:token',
    { schema: { params: Params, body: AnswerIn, response: { 200: PaymentOutcomeOut } } },
    async (request) => {
      const outcome = await completeChallenge(paymentDeps(services), request.params.token, request.body);
      return toOutcomeOut(outcome, services.config.baseUrl);
    },
  );
}

function sendChallengePage(reply: FastifyReply, page: { html: string; csp: string }) {
  return reply
    .header('Content-Security-Policy', page.csp)
    .header('Cache-Control', 'no-store')
    .header('Referrer-Policy', 'no-referrer')
    .type('text/html; charset=utf-8')
    .send(page.html);
}
