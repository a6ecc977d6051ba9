import { describe, expect, it } from 'vitest';
import { artifactPath, useBrowserWith } from './support/browser.ts';
import { ENGINES, turnsOf } from './support/engines.ts';
import { startLiveStripe } from './support/live-stripe.ts';
import { intentsForAttempt } from './support/stripe-double.ts';
import { fillCard, openHostPage, results } from './support/widget-pages.ts';

/**
 * Live payments in Debian's chromium: the widget on a merchant page, the Stripe connector
 * (real SDK) and the Stripe double, 3-D Secure through Stripe's redirect inside the widget.
 */
describe.each(ENGINES)(
  'live widget payments through Stripe in a browser (%s)',
  (engine) => {
    const { obolus: s, host, browser } = useBrowserWith(() => startLiveStripe(engine, { timeoutMs: 5000 }));

    const open = async (amount: number, options: { width?: number; dark?: boolean } = {}) => {
      const intent = await s.liveIntent({ amount });
      const opened = await openHostPage(
        browser,
        host,
        s.t,
        {
          pk: s.shop.clientKey,
          clientSecret: intent.client_secret,
          mode: 'live',
          ...(options.dark ? { theme: 'dark' } : {}),
        },
        options,
      );
      return { intent, ...opened };
    };
    const pay = (label: string) => `Pay ${label}`;

    it('approves 4242…: the host is told, Stripe holds one PaymentIntent', async () => {
      const { intent, page, widget } = await open(2000);
      await fillCard(widget, '4242424242424242');
      await widget.getByRole('button', { name: pay('$20.00') }).click();
      const [result] = await results(page, 1);
      expect(result).toMatchObject({ success: true, status: 'succeeded', payment_intent: intent.id });
      expect(intentsForAttempt(s.double, result.transaction_id)).toHaveLength(1);
      await widget.getByRole('heading', { name: 'Payment successful' }).waitFor();
      expect((await s.intentOf(intent.id)).status).toBe('succeeded');
    });

    it('shows a Stripe decline inline and lets the shopper pay with another card', async () => {
      const { intent, page, widget } = await open(1500);
      await fillCard(widget, '4000000000009995');
      await widget.getByRole('button', { name: pay('$15.00') }).click();
      const [declined] = await results(page, 1);
      expect(declined).toMatchObject({ success: false, status: 'failed', error: { code: 'insufficient_funds' } });
      await page.screenshot({ path: artifactPath(`live-stripe-decline-${engine}.png`) });
      await fillCard(widget, '5555555555554444');
      await widget.getByRole('button', { name: pay('$15.00') }).click();
      const [, paid] = await results(page, 2);
      expect(paid).toMatchObject({ success: true, status: 'succeeded', payment_intent: intent.id });
    });

    // One width and theme per engine, each paying on its own engine (decision 0271).
    it.each(
      turnsOf(engine, [
        [1280, false],
        [375, true],
      ] as const),
    )('3-D Secure through Stripe inside the widget (%ipx, dark: %s): completed, it pays', async (width, dark) => {
      const { intent, page, widget } = await open(4200, { width, dark });
      await fillCard(widget, '4000000000003220');
      await widget.getByRole('button', { name: pay('$42.00') }).click();
      await widget.getByRole('heading', { name: 'Confirm with your bank' }).waitFor();
      const issuer = widget.frameLocator('iframe[title^="3-D Secure"]').frameLocator('iframe#issuer');
      await issuer.getByRole('button', { name: 'Complete' }).waitFor();
      await page.screenshot({
        path: artifactPath(`live-stripe-3ds-${width}-${dark ? 'dark' : 'light'}-${engine}.png`),
      });
      expect(await page.evaluate(() => (window as any).results.length)).toBe(0);
      await issuer.getByRole('button', { name: 'Complete' }).click();
      const [result] = await results(page, 1);
      expect(result).toMatchObject({ success: true, status: 'succeeded', payment_intent: intent.id });
      await widget.getByRole('heading', { name: 'Payment successful' }).waitFor();
      expect(await s.record(result.transaction_id)).toMatchObject({ status: 20, three_d_secure: 'challenge_passed' });
    });

    it('3-D Secure failed at the bank: a decline the shopper can retry', async () => {
      const { page, widget } = await open(4300);
      await fillCard(widget, '4000000000003220');
      await widget.getByRole('button', { name: pay('$43.00') }).click();
      const issuer = widget.frameLocator('iframe[title^="3-D Secure"]').frameLocator('iframe#issuer');
      await issuer.getByRole('button', { name: 'Fail' }).click();
      const [result] = await results(page, 1);
      expect(result).toMatchObject({ success: false, status: 'failed', error: { code: 'authentication_failed' } });
      await widget.getByRole('button', { name: pay('$43.00') }).waitFor();
    });
  },
  60_000,
);
