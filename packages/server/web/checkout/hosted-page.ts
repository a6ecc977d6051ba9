import { Obolus, type ObolusResult } from '@obolus/js';

/**
 * The hosted checkout page's script. The page is the widget's host, like any merchant page:
 * it asks its own server for this product's intent (amount and mode come from the product,
 * never from here), mounts the widget with the loader, and shows the thank-you state.
 */

interface HostedConfig {
  pk: string;
  productId: string;
  mode: 'live' | 'sandbox';
  successUrl: string | null;
}

const config = JSON.parse(document.getElementById('checkout-config')?.textContent ?? '{}') as HostedConfig;
const byId = (id: string) => document.getElementById(id) as HTMLElement;

async function session(): Promise<string> {
  const response = await fetch(`/${config.productId}/checkout`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
    credentials: 'same-origin',
  });
  const body = (await response.json().catch(() => null)) as { client_secret?: string; error?: { message: string } };
  if (!response.ok || !body?.client_secret) throw new Error(body?.error?.message ?? 'The checkout could not start.');
  return body.client_secret;
}

function thankYou(result: ObolusResult): void {
  byId('checkout').hidden = true;
  byId('thanks').hidden = false;
  byId('thanks-title').focus();
  if (config.successUrl && result.payment_intent) {
    const target = new URL(config.successUrl);
    target.searchParams.set('payment_intent', result.payment_intent);
    byId('thanks-next').textContent = 'Taking you back to the shop…';
    setTimeout(() => location.assign(target.href), 1200);
  }
}

async function main(): Promise<void> {
  const theme = matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
  try {
    const clientSecret = await session();
    Obolus(config.pk, { baseUrl: location.origin }).mount('#widget', {
      clientSecret,
      mode: config.mode,
      theme,
      summary: false, // the page shows the product, its price and the test badge once

      onResult: (result) => {
        if (result.success) thankYou(result);
      },
    });
  } catch (error) {
    byId('problem').textContent = error instanceof Error ? error.message : 'The checkout could not start.';
  }
}

void main();
