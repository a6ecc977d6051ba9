import { describe, expect, it } from 'vitest';
import { artifactPath, useBrowserWith } from './support/browser.ts';
import { paymentsForAttempt } from './support/checkout-double.ts';
import { ENGINES, turnsOf } from './support/engines.ts';
import { startLiveCheckout } from './support/live-stripe.ts';
import { fillCard, openHostPage, results } from './support/widget-pages.ts';

/**
 * Live payments through the Checkout.com connector in Debian's chromium: 3-D Secure as
 * Checkout.com does it (202 Pending, `_links.redirect` inside the widget's challenge frame,
 * back to our URL with cko-session-id, then GET /payments/{id}).
 */
describe.each(ENGINES)(
  'live widget payments through Checkout.com in a browser (%s)',
  (engine) => {
    const { obolus: s, host, browser } = useBrowserWith(() => startLiveCheckout(engine, { timeoutMs: 5000 }));

    const open = async (amount: number, options: { width?: number; dark?: boolean } = {}) => {
      const intent = await s.liveIntent({ amount });
      const params = { pk: s.shop.clientKey, clientSecret: intent.client_secret, mode: 'live' as const };
      const opened = await openHostPage(
        browser,
        host,
        s.t,
        { ...params, ...(options.dark ? { theme: 'dark' } : {}) },
        options,
      );
      return { intent, ...opened };
    };
    const issuerOf = (widget: Awaited<ReturnType<typeof open>>['widget']) =>
      widget.frameLocator('iframe[title^="3-D Secure"]').frameLocator('iframe#issuer');

    // One width and theme per engine, each paying on its own engine (decision 0271).
    it.each(
      turnsOf(engine, [
        [1280, false],
        [375, true],
      ] as const),
    )(
      '3-D Secure through Checkout.com inside the widget (%ipx, dark: %s): authenticated, it pays once',
      async (width, dark) => {
        const { intent, page, widget } = await open(4200, { width, dark });
        await fillCard(widget, '4485040371536584');
        await widget.getByRole('button', { name: 'Pay $42.00' }).click();
        await widget.getByRole('heading', { name: 'Confirm with your bank' }).waitFor();
        await issuerOf(widget).getByRole('button', { name: 'Authenticate' }).waitFor();
        await page.screenshot({
          path: artifactPath(`live-checkout-3ds-${width}-${dark ? 'dark' : 'light'}-${engine}.png`),
        });
        await issuerOf(widget).getByRole('button', { name: 'Authenticate' }).click();
        const [result] = await results(page, 1);
        expect(result).toMatchObject({ success: true, status: 'succeeded', payment_intent: intent.id });
        expect(await s.record(result.transaction_id)).toMatchObject({ status: 20, three_d_secure: 'challenge_passed' });
        expect(paymentsForAttempt(s.double, result.transaction_id)).toHaveLength(1);
      },
    );

    it('3-D Secure failed at the bank: a decline the shopper can retry', async () => {
      const { page, widget } = await open(4300);
      await fillCard(widget, '4485040371536584');
      await widget.getByRole('button', { name: 'Pay $43.00' }).click();
      await issuerOf(widget).getByRole('button', { name: 'Fail' }).click();
      const [result] = await results(page, 1);
      expect(result).toMatchObject({ success: false, status: 'failed', error: { code: 'authentication_failed' } });
      await widget.getByRole('button', { name: 'Pay $43.00' }).waitFor();
    });
  },
  60_000,
);
