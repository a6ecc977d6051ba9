import { Obolus, type ObolusResult } from '@obolus/js';

/**
 * The hosted checkout page's script. The page is the widget's host, like any merchant page:
 * it asks its own server for this product's intent (amount and mode come from the product,
 * never from here), mounts the widget with the loader, and shows the thank-you state. A
 * browser that paid a moment ago gets the receipt instead; buying again is a button.
 */

interface HostedConfig {
  pk: string;
  productId: string;
  mode: 'live' | 'sandbox';
  successUrl: string | null;
}

interface Receipt {
  amount_display: string;
  transaction_id: string;
}

type Session = { payment_intent: string; client_secret?: string; receipt?: Receipt };

const config = JSON.parse(document.getElementById('checkout-config')?.textContent ?? '{}') as HostedConfig;
const UNAVAILABLE = 'Payments are briefly unavailable. Reload this page in a few seconds.';

const byId = (id: string) => document.getElementById(id) as HTMLElement;

async function session(newPurchase: boolean): Promise<Session> {
  const response = await fetch(`/${config.productId}/checkout`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(newPurchase ? { new_purchase: true } : {}),
    credentials: 'same-origin',
  });
  const body = (await response.json().catch(() => null)) as
    | (Session & { error?: { code: string; message: string } })
    | null;
  if (response.ok && body?.payment_intent) return body;
  // The database briefly away (decision 0220): said in the shopper's words.
  if (body?.error?.code === 'database_unavailable') throw new Error(UNAVAILABLE);
  throw new Error(body?.error?.message ?? 'The checkout could not start.');
}

function successTarget(paymentIntent: string): string | null {
  if (!config.successUrl) return null;
  const target = new URL(config.successUrl);
  target.searchParams.set('payment_intent', paymentIntent);
  return target.href;
}

function showThanks(): void {
  byId('checkout').hidden = true;
  byId('thanks').hidden = false;
  byId('thanks-title').focus();
}

function thankYou(result: ObolusResult): void {
  // The receipt at once, from the widget's result and the price on this page: no reload needed.
  if (result.payment_intent && result.transaction_id) {
    const amount = byId('thanks-amount').textContent ?? '';
    showReceipt(result.payment_intent, { amount_display: amount, transaction_id: result.transaction_id }, false);
  } else showThanks();
  const target = result.payment_intent ? successTarget(result.payment_intent) : null;
  if (target) {
    byId('thanks-next').textContent = 'Taking you back to the shop…';
    setTimeout(() => location.assign(target), 1200);
  }
}

/** The receipt: amount, payment and transaction ids; `withBack`: a link back to the shop (a revisit). */
function showReceipt(paymentIntent: string, receipt: Receipt, withBack = true): void {
  byId('thanks-amount').textContent = receipt.amount_display;
  byId('receipt-amount').textContent = receipt.amount_display;
  byId('receipt-payment').textContent = paymentIntent;
  byId('receipt-transaction').textContent = receipt.transaction_id;
  const target = withBack ? successTarget(paymentIntent) : null;
  const back = byId('receipt-back') as HTMLAnchorElement;
  if (target) {
    back.href = target;
    back.hidden = false;
  }
  byId('receipt').hidden = false;
  showThanks();
}

function mount(clientSecret: string): void {
  const theme = matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
  Obolus(config.pk, { baseUrl: location.origin }).mount('#widget', {
    clientSecret,
    mode: config.mode,
    theme,
    summary: false, // the page shows the product, its price and the test badge once
    // This page's card is the widget's surface, in the same theme as the widget.
    appearance: { variables: { colorBackground: 'transparent' } },
    onResult: (result) => {
      if (result.success) thankYou(result);
    },
  });
}

async function open(newPurchase: boolean): Promise<void> {
  try {
    const started = await session(newPurchase);
    if (started.receipt) return showReceipt(started.payment_intent, started.receipt);
    byId('thanks').hidden = true;
    byId('receipt').hidden = true;
    byId('checkout').hidden = false;
    if (started.client_secret) mount(started.client_secret);
  } catch (error) {
    byId('problem').textContent = error instanceof Error ? error.message : 'The checkout could not start.';
  }
}

byId('again').addEventListener('click', () => void open(true));
void open(false);
