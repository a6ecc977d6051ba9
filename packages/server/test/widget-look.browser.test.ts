import type { Frame, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { accountWithOrigins, artifactPath, useBrowserChecks } from './support/browser.ts';
import { seriousViolations } from './support/dashboard-pages.ts';
import { createIntent, fillCard, results } from './support/widget-pages.ts';

/**
 * How the checkout looks, judged as a shopper would see it: screenshots of every state at
 * 1280 and 375 px in both themes (test-artifacts/widget/look-*), no horizontal scroll or
 * overflow on a phone, the host's appearance variables applied, and the loader's answer
 * when allowed origins refuse the page. Layout is the same on every database: SQLite only.
 */
const WIDTHS = [1280, 375] as const;
const THEMES = ['light', 'dark'] as const;
type Theme = (typeof THEMES)[number];

const HOST_BG = { light: '#ffffff', dark: '#101218' };
/** The widget's own surface in each theme (widget-html.ts). */
const SURFACE = { light: 'rgb(255, 255, 255)', dark: 'rgb(23, 26, 35)' };

/**
 * Every visible text of the frame whose contrast with what is actually behind it is under
 * 4.5:1 (3:1 for large text): the nearest opaque background up the tree, else the host page's
 * colour behind the frame. Disabled controls are exempt, as in WCAG.
 */
function lowContrastTexts(frame: Frame, hostBackground: string): Promise<string[]> {
  return frame.evaluate((hostBg) => {
    const rgb = (text: string) => (text.match(/[\d.]+/g) ?? []).map(Number);
    const hex = (h: string) => [1, 3, 5].map((i) => Number.parseInt(h.slice(i, i + 2), 16));
    const luminance = ([r = 0, g = 0, b = 0]: number[]) => {
      const c = [r, g, b].map((v) => {
        const s = v / 255;
        return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
      });
      return 0.2126 * (c[0] ?? 0) + 0.7152 * (c[1] ?? 0) + 0.0722 * (c[2] ?? 0);
    };
    const behind = (el: Element | null): number[] => {
      for (let at = el; at; at = at.parentElement) {
        const colour = rgb(getComputedStyle(at).backgroundColor);
        if (colour.length === 3 || (colour[3] ?? 0) > 0.99) return colour.slice(0, 3);
      }
      return hex(hostBg);
    };
    const low: string[] = [];
    for (const el of document.querySelectorAll('body *')) {
      const own = [...el.childNodes].some((n) => n.nodeType === Node.TEXT_NODE && n.textContent?.trim());
      if (!own || !(el as HTMLElement).checkVisibility?.() || el.closest(':disabled')) continue;
      const style = getComputedStyle(el);
      const [a, b] = [luminance(rgb(style.color)), luminance(behind(el))];
      const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
      const size = Number.parseFloat(style.fontSize);
      const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
      if (ratio < (large ? 3 : 4.5))
        low.push(`${el.tagName.toLowerCase()}#${el.id} "${el.textContent?.trim().slice(0, 30)}" ${ratio.toFixed(2)}:1`);
    }
    return low;
  }, hostBackground);
}

/** A merchant checkout column up to 640 px wide, in the page's theme, mounting the widget. */
function merchantPage(obolusUrl: string, mount: Record<string, unknown>, theme: Theme): string {
  const colour = theme === 'dark' ? '#e6e8f0' : '#1a1f36';
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Shop</title><style>body{margin:0;padding:16px;background:${HOST_BG[theme]};color:${colour};font:16px system-ui}
#col{max-width:640px}</style></head><body><div id="col"><h1>Your order</h1><div id="slot"></div></div>
<script>window.results = [];</script>
<script type="module">
import { Obolus } from '${obolusUrl}/js/v1/obolus.js';
Obolus(${JSON.stringify(mount.pk)}).mount('#slot', { ...${JSON.stringify({ ...mount, pk: undefined })}, onResult: (r) => window.results.push(r) });
</script></body></html>`;
}

/** Nothing wider than the viewport, in the page and inside the widget's frame. */
async function assertNoOverflow(target: Page | Frame): Promise<void> {
  const overflow = await target.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const wide = [...document.querySelectorAll('body *')]
      .filter((el) => (el as HTMLElement).offsetParent !== null)
      .filter((el) => el.getBoundingClientRect().right > width + 0.5)
      .map((el) => `${el.tagName.toLowerCase()}#${el.id}.${el.className}`);
    return { scroll: document.documentElement.scrollWidth - width, wide };
  });
  expect(overflow).toEqual({ scroll: 0, wide: [] });
}

describe('the checkout as shoppers see it', () => {
  let pages = 0;

  const { obolus, host, browser, shop } = useBrowserChecks('sqlite', { withAccount: 'Demo Store' });

  async function open(
    width: number,
    theme: Theme,
    mount: Record<string, unknown>,
    origin = host.origin,
    hostTheme: Theme = theme,
  ) {
    const path = `/look-${++pages}`;
    host.page(path, merchantPage(obolus.url, { pk: shop.clientKey, mode: 'sandbox', theme, ...mount }, hostTheme));
    const context = await browser.context({ width, dark: theme === 'dark' });
    const page = await context.newPage();
    await page.goto(`${origin}${path}`);
    const widget = page.frameLocator('iframe[title="Secure card payment"]');
    return { page, widget, frame: async () => (await (await page.$('iframe'))?.contentFrame()) as Frame };
  }

  for (const width of WIDTHS) {
    for (const theme of THEMES) {
      it(`widget at ${width} px, ${theme}: before, validation error, declined, success`, async () => {
        const shot = (state: string) => artifactPath(`look-widget-${state}-${width}-${theme}.png`);
        const intent = await createIntent(obolus, shop, { reference: 'order-1042' });
        const { page, widget, frame } = await open(width, theme, { clientSecret: intent.client_secret });
        await expect.poll(() => widget.locator('#amount').textContent()).toBe('$20.00');
        await widget.getByRole('button', { name: 'Pay $20.00' }).waitFor();

        // Aligned with the host's column, filling it up to the widget's maximum.
        const box = await page.locator('iframe').boundingBox();
        const main = await (await frame()).evaluate(() =>
          document.querySelector('main')!.getBoundingClientRect().toJSON(),
        );
        expect(main.left).toBeLessThanOrEqual(4);
        expect(main.width).toBeCloseTo(Math.min(box!.width, 560), 0);
        // The widget paints its own surface, for which its text is coloured (decision 0234).
        expect(
          await (await frame()).evaluate(() => getComputedStyle(document.querySelector('main')!).backgroundColor),
        ).toBe(SURFACE[theme]);
        await page.screenshot({ path: shot('before') });
        if (width === 375) {
          await assertNoOverflow(page);
          await assertNoOverflow(await frame());
        }
        // The expiry label's format hint stays on one line, and the Amex badge shows its whole name.
        expect(await widget.locator('label[for="exp"] .nw').evaluate((el) => el.getClientRects().length)).toBe(1);
        await widget.getByLabel('Card number').fill('3782 822463 10005');
        const badge = widget.locator('#brand');
        await expect.poll(() => badge.textContent()).toBe('Amex');
        expect(await badge.getAttribute('aria-label')).toBe('American Express');
        expect(await badge.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
        await widget.getByLabel('Card number').fill('');

        await widget.getByRole('button', { name: 'Pay $20.00' }).click();
        const number = widget.getByLabel('Card number');
        await expect.poll(() => number.getAttribute('aria-invalid')).toBe('true');
        await number.focus();
        await page.keyboard.press('Shift+Tab');
        await page.keyboard.press('Tab');
        // One ring, no outline drawn over the red border.
        const ring = await number.evaluate((el) => ({
          outline: getComputedStyle(el).outlineStyle,
          shadow: getComputedStyle(el).boxShadow,
        }));
        expect(ring.outline).toBe('none');
        expect(ring.shadow).toMatch(/inset.*,.* 0px 0px 0px 3px/);
        await page.screenshot({ path: shot('invalid') });
        if (width === 375) await assertNoOverflow(await frame());

        await fillCard(widget, '4000000000000002');
        await widget.getByRole('button', { name: 'Pay $20.00' }).click();
        await expect.poll(() => widget.locator('#alert').textContent()).toMatch(/declined/);
        await page.screenshot({ path: shot('declined') });

        await fillCard(widget, '4242424242424242');
        await widget.getByRole('button', { name: 'Pay $20.00' }).click();
        const [, paid] = await results(page, 2);
        await widget.getByRole('heading', { name: 'Payment successful' }).waitFor();
        expect(await widget.locator('#done-amount').textContent()).toBe('$20.00');
        // "Reference" is the merchant's order reference; the transaction's id is labelled as an id.
        expect(await widget.locator('#done-ids').innerText()).toMatch(
          new RegExp(`^Order reference\\s+order-1042\\s+Transaction ID\\s+${paid.transaction_id}$`),
        );
        const heading = widget.getByRole('heading', { name: 'Payment successful' });
        expect(
          await heading.evaluate((el) => [document.activeElement === el, getComputedStyle(el).outlineStyle]),
        ).toEqual([true, 'none']);
        await page.screenshot({ path: shot('success') });
        if (width === 375) await assertNoOverflow(await frame());
      });
    }
  }

  // Each widget theme on each host page: the text is readable against what is behind it (issue 29).
  for (const theme of THEMES) {
    for (const hostTheme of THEMES) {
      it(`a ${theme} widget on a ${hostTheme} page: every text meets 4.5:1, before and after a decline`, async () => {
        for (const width of WIDTHS) {
          const intent = await createIntent(obolus, shop, { amount: 2100 });
          const { page, widget, frame } = await open(
            width,
            theme,
            { clientSecret: intent.client_secret },
            host.origin,
            hostTheme,
          );
          await widget.getByRole('button', { name: 'Pay $21.00' }).waitFor();
          await expect
            .poll(async () => await widget.getByRole('button', { name: 'Pay $21.00' }).isEnabled())
            .toBe(true);
          expect(await lowContrastTexts(await frame(), HOST_BG[hostTheme])).toEqual([]);
          await fillCard(widget, '4000000000000002');
          await widget.getByRole('button', { name: 'Pay $21.00' }).click();
          await expect.poll(() => widget.locator('#alert').textContent()).toMatch(/declined/);
          expect(await lowContrastTexts(await frame(), HOST_BG[hostTheme])).toEqual([]);
          expect(await seriousViolations(await frame())).toEqual([]);
          await page.screenshot({ path: artifactPath(`look-widget-${theme}-on-${hostTheme}-page-${width}.png`) });
        }
      });
    }
  }

  it("opened on its own, the widget page is its theme's surface, and its notice is readable", async () => {
    for (const theme of THEMES) {
      const context = await browser.context({ width: 375, dark: theme === 'dark' });
      const page = await context.newPage();
      await page.goto(`${obolus.url}/embed?pk=${shop.clientKey}&theme=${theme}`);
      await page.getByText('This payment form opens inside a shop’s checkout page.').waitFor();
      expect(await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor)).toBe(
        SURFACE[theme],
      );
      expect(await lowContrastTexts(page.mainFrame(), '#ffffff')).toEqual([]);
      await page.screenshot({ path: artifactPath(`look-widget-standalone-${theme}-375.png`) });
    }
  });

  it('3-D Secure: the bank frame takes its content height, in both themes', async () => {
    for (const theme of THEMES) {
      const intent = await createIntent(obolus, shop, { amount: 4200 });
      const { page, widget } = await open(375, theme, { clientSecret: intent.client_secret });
      await fillCard(widget, '4000000000003220');
      await widget.getByRole('button', { name: 'Pay $42.00' }).click();
      const acs = widget.frameLocator('iframe[title^="3-D Secure"]');
      await acs.getByLabel('One-time code').waitFor();
      const bank = widget.locator('iframe[title^="3-D Secure"]');
      await expect
        .poll(async () => {
          const [frameHeight, contentHeight] = await Promise.all([
            bank.evaluate((f) => f.getBoundingClientRect().height),
            acs.locator('html').evaluate((h) => h.scrollHeight),
          ]);
          return Math.abs(frameHeight - contentHeight) <= 4;
        })
        .toBe(true);
      await page.screenshot({ path: artifactPath(`look-3ds-375-${theme}.png`) });
    }
  });

  it('the hosted page shows merchant, price and one test badge once; the thank-you heading has no focus box', async () => {
    const product = (
      await obolus.call('POST', '/api/v1/products', {
        key: shop.secretKey,
        body: { name: 'Obolus mug', description: 'A sandbox mug', amount: 1500, currency: 'USD', mode: 'sandbox' },
      })
    ).json;
    for (const width of WIDTHS) {
      for (const theme of THEMES) {
        const page = await (await browser.context({ width, dark: theme === 'dark' })).newPage();
        await page.goto(product.url.replace('localhost', '127.0.0.1'));
        const widget = page.frameLocator('iframe[title="Secure card payment"]');
        await widget.getByRole('button', { name: 'Pay $15.00' }).waitFor();
        const widgetFrame = (await (await page.$('iframe'))?.contentFrame()) as Frame;
        const visibleText = async () =>
          `${await page.locator('body').innerText()}\n${await widgetFrame.locator('body').innerText()}`;
        const text = await visibleText();
        // The Pay button names the price again; nothing else does.
        const shown = text.replace('Pay $15.00', 'Pay');
        for (const once of ['Demo Store', '$15.00', 'A sandbox mug'])
          expect(shown.split(once).length - 1, once).toBe(1);
        expect(text.match(/test (mode|payment)/gi)).toHaveLength(1);
        await page.screenshot({ path: artifactPath(`look-hosted-${width}-${theme}.png`), fullPage: true });
        if (width === 375) {
          await assertNoOverflow(page);
          await assertNoOverflow(widgetFrame);
        }
        if (width === 1280 && theme === 'light') {
          await fillCard(widget, '4242424242424242');
          await widget.getByRole('button', { name: 'Pay $15.00' }).click();
          const thanks = page.getByRole('heading', { name: 'Thank you for your purchase' });
          await thanks.waitFor();
          expect(
            await thanks.evaluate((el) => [document.activeElement === el, getComputedStyle(el).outlineStyle]),
          ).toEqual([true, 'none']);
          await page.screenshot({ path: artifactPath('look-hosted-thanks-1280-light.png') });
        }
      }
    }
  });

  it("the host's appearance variables reach the widget; a wrong one is refused by name", async () => {
    const appearance = {
      variables: {
        colorPrimary: '#0a7d4f',
        colorBackground: '#fdf6e3',
        colorText: '#222222',
        colorDanger: '#a4161a',
        borderRadius: '2px',
        fontFamily: 'Georgia, serif',
      },
    };
    const intent = await createIntent(obolus, shop);
    const { page, widget } = await open(1280, 'light', { clientSecret: intent.client_secret, appearance });
    const pay = widget.getByRole('button', { name: 'Pay $20.00' });
    await pay.waitFor();
    expect(await pay.evaluate((b) => [getComputedStyle(b).backgroundColor, getComputedStyle(b).color])).toEqual([
      'rgb(10, 125, 79)',
      'rgb(255, 255, 255)',
    ]);
    const look = await widget.locator('#number').evaluate((input) => ({
      radius: getComputedStyle(input).borderRadius,
      font: getComputedStyle(input).fontFamily,
      text: getComputedStyle(document.body).color,
      background: getComputedStyle(document.querySelector('main')!).backgroundColor,
    }));
    expect(look).toEqual({
      radius: '2px',
      font: 'Georgia, serif',
      text: 'rgb(34, 34, 34)',
      background: 'rgb(253, 246, 227)',
    });
    await page.screenshot({ path: artifactPath('look-appearance-1280-light.png') });

    const bad = await createIntent(obolus, shop);
    const refused = await open(1280, 'light', {
      clientSecret: bad.client_secret,
      appearance: { variables: { colorPrimary: 'red;}body{display:none' } },
    });
    await expect
      .poll(() => refused.widget.locator('main').textContent())
      .toMatch(/appearance\.colorPrimary must be a hex colour/);
  });

  it('a page outside the allowed origins gets origin_not_allowed and a console hint, not a broken frame', async () => {
    const strict = await accountWithOrigins(obolus, 'Strict Shop', [host.origin]);
    const intent = await createIntent(obolus, strict);
    const path = `/look-${++pages}`;
    host.page(path, merchantPage(obolus.url, { pk: strict.clientKey, clientSecret: intent.client_secret }, 'light'));
    const page = await (await browser.context()).newPage();
    const console: string[] = [];
    page.on('console', (message) => console.push(message.text()));
    await page.goto(`${host.foreignOrigin}${path}`);
    const [result] = await results(page, 1);
    expect(result).toMatchObject({ success: false, error: { code: 'origin_not_allowed' } });
    expect(console.join('\n')).toMatch(/obolus origins set/);
    expect(await page.locator('iframe').isHidden()).toBe(true);

    // The allowed origin is not refused, however long the shopper takes.
    const allowed = await (await browser.context()).newPage();
    await allowed.goto(`${host.origin}${path}`);
    await allowed.frameLocator('iframe').getByRole('button', { name: 'Pay $20.00' }).waitFor();
    await allowed.waitForTimeout(3000);
    expect(await allowed.evaluate(() => (window as any).results)).toEqual([]);
  });
});
