import type { BrowserContext, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { newCardKeyPair, RSA_UPGRADE_GRACE_MS } from '../src/crypto/card-keyring.ts';
import { useBrowserChecks } from './support/browser.ts';
import { ENGINES } from './support/engines.ts';
import type { TestAccount } from './support/server.ts';
import { createIntent, fillCard, hostPageHtml, results } from './support/widget-pages.ts';

/**
 * Issue 28, decisions 0250 and 0251: in Debian's chromium the widget encrypts the card to the
 * P-256 key with the browser's WebCrypto (ECDH-ES+A256KW); a widget loaded before the upgrade
 * still holds the installation's RSA key and pays with it while that key is in its grace; once
 * the key is retired its ciphertext is refused and the widget pays on with the P-256 key.
 */
describe.each(ENGINES)('the widget and the card-encryption keys (%s)', (engine) => {
  let shop: TestAccount;
  const rsa = newCardKeyPair(Date.now(), 'RSA-OAEP-256');
  /** The JWKS as a service from before P-256 keys published it: its one RSA key. */
  const oldJwks = { keys: [{ ...rsa.publicJwk, kid: rsa.kid, alg: 'RSA-OAEP-256', use: 'enc' }] };
  let pages = 0;

  const { obolus, host, browser } = useBrowserChecks(engine);
  beforeAll(async () => {
    // An installation from before the upgrade: its current key is RSA, and nothing has loaded it yet.
    await obolus.server.services.repos.encryptionKeys.rotate(rsa, Date.now());
    shop = await obolus.newAccount('Demo Store');
  });

  /** Opens a merchant page paying `clientSecret`; `setUp` runs on its context before it loads. */
  async function open(clientSecret: string, setUp?: (context: BrowserContext) => Promise<unknown>) {
    const path = `/keys-${++pages}`;
    host.page(path, hostPageHtml(obolus.url, { pk: shop.clientKey, clientSecret }));
    const context = await browser.context();
    await setUp?.(context);
    const page = await context.newPage();
    const sent: string[] = [];
    page.on('request', (request) => {
      if (request.url().endsWith('/embed/v1/confirm')) sent.push(request.postData() ?? '');
    });
    await page.goto(`${host.origin}${path}`);
    const widget = page.frameLocator('iframe[title="Secure card payment"]');
    return { context, page, widget, headers: () => sent.map(headerOf) };
  }

  const headerOf = (body: string) =>
    JSON.parse(Buffer.from(JSON.parse(body).card.split('.')[0], 'base64url').toString());
  const pay = async (widget: ReturnType<Page['frameLocator']>) =>
    widget.getByRole('button', { name: 'Pay $20.00' }).click();

  it('publishes the P-256 key first and the RSA key for its grace; the widget pays with the P-256 key', async () => {
    const jwks = (await obolus.call('GET', '/embed/v1/jwks.json')).json.keys;
    expect(jwks.map((k: { kty: string; kid: string }) => [k.kty, k.kid])).toEqual([
      ['EC', expect.stringMatching(/^ck_/)],
      ['RSA', rsa.kid],
    ]);
    const [rsaKey] = await obolus.server.services.repos.encryptionKeys
      .usable(Date.now())
      .then((keys) => keys.filter((k) => k.kid === rsa.kid));
    expect(rsaKey?.decryptsUntil).toBeGreaterThan(Date.now() + RSA_UPGRADE_GRACE_MS - 60_000);

    const intent = await createIntent(obolus, shop);
    const { page, widget, headers } = await open(intent.client_secret);
    await fillCard(widget, '4242424242424242');
    await pay(widget);
    expect((await results(page, 1))[0]).toMatchObject({ success: true, status: 'succeeded' });
    expect(headers()).toEqual([
      expect.objectContaining({
        alg: 'ECDH-ES+A256KW',
        enc: 'A256GCM',
        kid: jwks[0].kid,
        epk: { kty: 'EC', crv: 'P-256', x: expect.any(String), y: expect.any(String) },
        payment_intent: intent.id,
      }),
    ]);
  });

  it('a widget holding the RSA key pays with it during the rotation; retired, it is refused and the widget takes the P-256 key', async () => {
    // A page loaded before the upgrade: the JWKS it fetched named the RSA key alone.
    const oldPage = (context: BrowserContext) =>
      context.route('**/embed/v1/jwks.json', (route) => route.fulfill({ json: oldJwks }));
    const during = await createIntent(obolus, shop);
    const first = await open(during.client_secret, oldPage);
    await fillCard(first.widget, '4242424242424242');
    await pay(first.widget);
    expect((await results(first.page, 1))[0]).toMatchObject({ success: true, status: 'succeeded' });
    expect(first.headers()).toEqual([expect.objectContaining({ alg: 'RSA-OAEP-256', kid: rsa.kid })]);

    // The operator retires the RSA key (obolus keys retire-encryption): its ciphertexts are refused.
    expect(await obolus.server.services.keyring.retire(rsa.kid)).toMatchObject({ kid: rsa.kid });
    const after = await createIntent(obolus, shop);
    const second = await open(after.client_secret, oldPage);
    await fillCard(second.widget, '4242424242424242');
    await pay(second.widget);
    expect((await results(second.page, 1))[0]).toMatchObject({
      success: false,
      error: { code: 'card_encryption_invalid', message: expect.stringContaining('retired') },
    });
    await expect.poll(() => second.widget.getByRole('alert').textContent()).toContain('retired');
    expect(await obolus.server.services.repos.transactions.forIntent(shop.id, after.id)).toEqual([]);

    // The shopper presses Pay again: the widget fetches the keys afresh and pays with the P-256 key.
    await second.context.unrouteAll();
    await pay(second.widget);
    expect((await results(second.page, 2))[1]).toMatchObject({ success: true, status: 'succeeded' });
    expect(second.headers().map((h) => h.alg)).toEqual(['RSA-OAEP-256', 'ECDH-ES+A256KW']);
    expect(await obolus.server.services.repos.transactions.forIntent(shop.id, after.id)).toHaveLength(1);
  });
});
