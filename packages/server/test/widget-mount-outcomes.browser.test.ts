import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { artifactPath, startPublicTestServer, useBrowserChecks } from './support/browser.ts';
import { PAGE_ENGINES } from './support/engines.ts';
import type { TestStripe } from './support/live-stripe.ts';
import type { TestAccount } from './support/server.ts';
import { startTestStripe } from './support/stripe-double.ts';
import { card, confirm } from './support/widget-client.ts';
import { createIntent, fillCard, hostPageHtml, intentNow, openHostPage, results } from './support/widget-pages.ts';

/**
 * Issue 10, items 1, 5, 6 and 12 in Debian's chromium: what the widget puts in its card
 * ciphertext, and how a mount on an intent already paid, being paid, or waiting on 3-D
 * Secure ends, also when the widget is loaded by another host name than the base URL.
 */
describe.each(PAGE_ENGINES)('the widget binds its ciphertexts and always reports a result (%s)', (engine) => {
  let double: TestStripe;
  let shop: TestAccount;
  let other: TestAccount;

  beforeAll(async () => {
    double = await startTestStripe();
  });
  afterAll(() => double?.close());
  const { obolus, host, browser } = useBrowserChecks(engine, {
    server: () => startPublicTestServer(engine, { liveConnector: { name: 'stripe', stripe: double.config() } }),
  });
  beforeAll(async () => {
    shop = await obolus.newAccount('Demo Store');
    other = await obolus.newAccount('Other Store');
  });

  it('the ciphertext names its intent, the time and a unique id; replayed, it is refused', async () => {
    const intent = await createIntent(obolus, shop, { amount: 1500 });
    const { page, widget } = await openHostPage(browser, host, obolus, {
      pk: shop.clientKey,
      clientSecret: intent.client_secret,
    });
    const sent: string[] = [];
    page.on('request', (request) => {
      if (request.url().endsWith('/embed/v1/confirm')) sent.push(request.postData() ?? '');
    });
    await fillCard(widget, '4000000000000002');
    await widget.getByRole('button', { name: 'Pay $15.00' }).click();
    expect((await results(page, 1))[0]).toMatchObject({ status: 'failed', error: { code: 'card_declined' } });

    const body = JSON.parse(sent[0] as string);
    const header = JSON.parse(Buffer.from(body.card.split('.')[0], 'base64url').toString());
    expect(header).toEqual({
      alg: 'ECDH-ES+A256KW',
      enc: 'A256GCM',
      epk: { kty: 'EC', crv: 'P-256', x: expect.any(String), y: expect.any(String) },
      kid: expect.stringMatching(/^ck_/),
      payment_intent: intent.id,
      iat: expect.any(Number),
      jti: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
    });
    expect(Math.abs(header.iat * 1000 - Date.now())).toBeLessThan(60_000);

    // The captured request, replayed as is on the same intent, then on another shop's intent.
    const same = await obolus.call('POST', '/embed/v1/confirm', { body });
    expect(same.json.error).toMatchObject({
      code: 'card_encryption_invalid',
      message: expect.stringContaining('used'),
    });
    const target = await createIntent(obolus, other, { amount: 99_999_999 });
    const foreign = await obolus.call('POST', '/embed/v1/confirm', {
      body: { ...body, pk: other.clientKey, client_secret: target.client_secret },
    });
    expect(foreign.json.error).toMatchObject({ code: 'card_encryption_invalid' });
    expect(await obolus.server.services.repos.transactions.forIntent(shop.id, intent.id)).toHaveLength(1);
    expect(await obolus.server.services.repos.transactions.forIntent(other.id, target.id)).toEqual([]);

    // The shopper is not locked out: the widget encrypts afresh on the next press.
    await fillCard(widget, '4242424242424242');
    await widget.getByRole('button', { name: 'Pay $15.00' }).click();
    expect((await results(page, 2))[1]).toMatchObject({ status: 'succeeded', success: true });
  });

  it('mounted on a paid intent: the receipt, and a success result with the transaction id', async () => {
    const intent = await createIntent(obolus, shop);
    const paid = await confirm(obolus, shop.clientKey, intent.client_secret, card('4242424242424242'));
    for (const [width, dark] of [
      [1280, false],
      [375, true],
    ] as const) {
      const { page, widget } = await openHostPage(
        browser,
        host,
        obolus,
        { pk: shop.clientKey, clientSecret: intent.client_secret, theme: dark ? 'dark' : 'light' },
        { width, dark },
      );
      expect(await results(page, 1)).toEqual([
        {
          success: true,
          status: 'succeeded',
          payment_intent: intent.id,
          transaction_id: paid.json.transaction_id,
        },
      ]);
      await widget.getByText('This payment has already been made.').waitFor();
      await page.screenshot({ path: artifactPath(`mount-paid-${dark ? 'dark' : 'light'}-${width}-${engine}.png`) });
    }
  });

  it('mounted on a canceled intent, or paying one canceled while the form was open: a canceled result, nothing charged', async () => {
    const canceled = await createIntent(obolus, shop);
    await obolus.call('POST', `/api/v1/payment-intents/${canceled.id}/cancel`, { key: shop.secretKey });
    const mounted = await openHostPage(browser, host, obolus, {
      pk: shop.clientKey,
      clientSecret: canceled.client_secret,
    });
    const [result] = await results(mounted.page, 1);
    expect(result).toMatchObject({
      success: false,
      status: 'canceled',
      payment_intent: canceled.id,
      error: { type: 'invalid_request', code: 'payment_intent_canceled' },
    });
    await mounted.widget.getByText('This payment was canceled by the shop.', { exact: false }).waitFor();
    await mounted.page.screenshot({ path: artifactPath(`mount-canceled-light-1280-${engine}.png`) });

    const open = await createIntent(obolus, shop, { amount: 1500 });
    const { page, widget } = await openHostPage(
      browser,
      host,
      obolus,
      { pk: shop.clientKey, clientSecret: open.client_secret, theme: 'dark' },
      { width: 375, dark: true },
    );
    await fillCard(widget, '4242424242424242');
    await obolus.call('POST', `/api/v1/payment-intents/${open.id}/cancel`, { key: shop.secretKey });
    await widget.getByRole('button', { name: 'Pay $15.00' }).click();
    expect((await results(page, 1))[0]).toMatchObject({
      success: false,
      status: 'canceled',
      payment_intent: open.id,
      error: { code: 'payment_intent_canceled' },
    });
    await widget.getByText('This payment was canceled by the shop.', { exact: false }).waitFor();
    await page.screenshot({ path: artifactPath(`pay-canceled-dark-375-${engine}.png`) });
    const after = await obolus.call('GET', `/api/v1/payment-intents/${open.id}`, { key: shop.secretKey });
    expect(after.json).toMatchObject({ status: 'canceled', last_transaction: null });
  });

  it('mounted on an intent being processed: a processing result the host can act on', async () => {
    const intent = await createIntent(obolus, shop, { mode: 'live' });
    // Stripe answers 500 to the call and to its retry: the outcome is unknown, the intent processing.
    double.arm('create', { fault: 'error_500_before' }, 5);
    const started = await confirm(obolus, shop.clientKey, intent.client_secret, card('4242424242424242'), {
      mode: 'live',
    });
    expect(started.json.status).toBe('processing');
    for (const [width, dark] of [
      [1280, true],
      [375, false],
    ] as const) {
      const { page, widget } = await openHostPage(
        browser,
        host,
        obolus,
        { pk: shop.clientKey, clientSecret: intent.client_secret, mode: 'live', theme: dark ? 'dark' : 'light' },
        { width, dark },
      );
      expect(await results(page, 1)).toEqual([
        {
          success: false,
          status: 'processing',
          payment_intent: intent.id,
          transaction_id: started.json.transaction_id,
        },
      ]);
      await widget.getByText('This payment is already being processed.', { exact: false }).waitFor();
      await page.screenshot({
        path: artifactPath(`mount-processing-${dark ? 'dark' : 'light'}-${width}-${engine}.png`),
      });
    }
  });

  it('a reloaded widget resumes an open 3-D Secure challenge, even loaded as localhost', async () => {
    const intent = await createIntent(obolus, shop);
    const started = await confirm(obolus, shop.clientKey, intent.client_secret, card('4000000000003220'));
    expect(started.json.status).toBe('requires_action');
    // The base URL says 127.0.0.1; this page loads Obolus (loader, widget) as localhost.
    const localhost = obolus.url.replace('127.0.0.1', 'localhost');
    const path = '/reloaded-checkout';
    host.page(path, hostPageHtml(localhost, { pk: shop.clientKey, clientSecret: intent.client_secret }));
    const page = await (await browser.context({ width: 375 })).newPage();
    await page.goto(`${host.origin}${path}`);
    const widget = page.frameLocator('iframe[title="Secure card payment"]');
    const acs = widget.frameLocator('iframe[title^="3-D Secure"]');
    await acs.getByLabel('One-time code').fill('1234');
    await page.screenshot({ path: artifactPath(`mount-resumed-challenge-375-${engine}.png`) });
    await acs.getByRole('button', { name: 'Confirm' }).click();
    expect(await results(page, 1)).toEqual([
      {
        success: true,
        status: 'succeeded',
        payment_intent: intent.id,
        transaction_id: started.json.transaction_id,
      },
    ]);
    expect((await intentNow(obolus, shop, intent.id)).status).toBe('succeeded');
  });

  it('a fresh challenge in a widget loaded as localhost reaches the widget too', async () => {
    const intent = await createIntent(obolus, shop, { amount: 700 });
    const localhost = obolus.url.replace('127.0.0.1', 'localhost');
    const path = '/localhost-checkout';
    host.page(path, hostPageHtml(localhost, { pk: shop.clientKey, clientSecret: intent.client_secret }));
    const page = await (await browser.context()).newPage();
    await page.goto(`${host.origin}${path}`);
    const widget = page.frameLocator('iframe[title="Secure card payment"]');
    await fillCard(widget, '4000000000003220');
    await widget.getByRole('button', { name: 'Pay $7.00' }).click();
    const acs = widget.frameLocator('iframe[title^="3-D Secure"]');
    await acs.getByLabel('One-time code').fill('1234');
    await acs.getByRole('button', { name: 'Confirm' }).click();
    expect((await results(page, 1))[0]).toMatchObject({ success: true, status: 'succeeded' });
  });

  it('another site framing the challenge page directly gets no code and no form (issue 10 item 14)', async () => {
    const intent = await createIntent(obolus, shop);
    const started = await confirm(obolus, shop.clientKey, intent.client_secret, card('4000000000003220'));
    host.page('/framer', `<!doctype html><iframe title="acs" src="${started.json.challenge_url}"></iframe>`);
    const page = await (await browser.context()).newPage();
    await page.goto(`${host.origin}/framer`);
    const framed = page.frameLocator('iframe[title="acs"]');
    await framed.getByText('This page opens inside the payment form').waitFor();
    expect(await framed.locator('body').innerText()).not.toContain('1234');
    expect(await framed.locator('#code').count()).toBe(0);
    expect((await intentNow(obolus, shop, intent.id)).status).toBe('processing');
  });
});
