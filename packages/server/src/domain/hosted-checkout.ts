import { timingSafeEqual } from 'node:crypto';
import type { Clock } from '../clock.ts';
import { HOUR } from '../clock.ts';
import { CLIENT_SECRET } from '../ids.ts';
import type { Account } from './accounts.ts';
import { createPaymentIntent, type IntentStore, type PaymentIntent } from './intents.ts';
import { type Product, type ProductStore, productForCheckout } from './products.ts';

/**
 * The hosted checkout page's intent. The page asks for it when the shopper's browser runs
 * its script (a crawler or link preview fetching the page creates nothing), and a reload
 * within the hour reuses it through a cookie instead of making another (decisions/0030).
 */

export const HOSTED_SESSION_TTL_MS = HOUR;
/** An intent this close to its 7-day end is not handed out again: the shopper could not finish. */
const MIN_REMAINING_MS = HOUR;

export interface HostedCheckoutDeps {
  products: ProductStore;
  accounts: { find(id: string): Promise<Account | undefined> };
  intents: IntentStore;
  clock: Clock;
}

export interface HostedSession {
  product: Product;
  intent: PaymentIntent;
  reused: boolean;
}

/** The intent for one shopper buying one product; undefined when the product cannot be sold now. */
export async function startHostedCheckout(
  deps: HostedCheckoutDeps,
  productId: string,
  previousSecret: string | undefined,
): Promise<HostedSession | undefined> {
  const found = await productForCheckout(deps.products, deps.accounts, productId);
  if (!found) return undefined;
  const { product, account } = found;
  const previous = previousSecret ? await reusableIntent(deps, product, previousSecret) : undefined;
  if (previous) return { product, intent: previous, reused: true };
  // Amount and mode come from the product: the browser has no say in either.
  const intent = await createPaymentIntent(deps.intents, deps.clock, account, {
    amount: product.amount,
    currency: product.currency,
    mode: product.mode,
    ...(product.description ? { description: product.description } : {}),
    productId: product.id,
  });
  return { product, intent, reused: false };
}

/**
 * The intent a cookie names, if it may take this shopper's payment for the product as it
 * is now. An intent being processed is not reused: a new one lets the shopper go on after
 * an abandoned 3-D Secure challenge.
 */
async function reusableIntent(
  deps: HostedCheckoutDeps,
  product: Product,
  secret: string,
): Promise<PaymentIntent | undefined> {
  const id = CLIENT_SECRET.exec(secret)?.[1];
  const intent = id ? await deps.intents.find(product.accountId, id) : undefined;
  if (!intent || !sameSecret(intent.clientSecret, secret)) return undefined;
  const current =
    intent.productId === product.id &&
    intent.amount === product.amount &&
    intent.mode === product.mode &&
    (intent.status === 'requires_payment' || intent.status === 'failed') &&
    intent.expiresAt - deps.clock.now() > MIN_REMAINING_MS;
  return current ? intent : undefined;
}

function sameSecret(stored: string, given: string): boolean {
  const a = Buffer.from(stored);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}
