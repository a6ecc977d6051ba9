import { timingSafeEqual } from 'node:crypto';
import type { Clock } from '../clock.ts';
import { HOUR, MINUTE } from '../clock.ts';
import { CLIENT_SECRET } from '../ids.ts';
import type { Account } from './accounts.ts';
import { clientNetwork } from './client-network.ts';
import { ApiError } from './errors.ts';
import { createPaymentIntent, type IntentStore, type PaymentIntent } from './intents.ts';
import type { ProcessorRegistry } from './payments/ports.ts';
import { type Product, type ProductStore, productForCheckout } from './products.ts';

/**
 * The hosted checkout page's intent. The page asks for it when the shopper's browser runs
 * its script (a crawler or link preview fetching the page creates nothing), and a reload
 * within the hour reuses it through a cookie instead of making another (decisions/0030).
 */

export const HOSTED_SESSION_TTL_MS = HOUR;
/**
 * A hosted intent lives as long as the checkout session that made it, not the API's 7 days:
 * terms shown to a shopper (the product's price) must not stay payable for a week after the
 * merchant changed them (issue 25 item 8, decision 0207).
 */
export const HOSTED_INTENT_LIFETIME_MS = HOSTED_SESSION_TTL_MS;
/** An intent this close to its end is not handed out again: the shopper could not finish. */
const MIN_REMAINING_MS = 10 * MINUTE;

/**
 * New intents the hosted checkout makes for one client address per fixed window: the page
 * needs no credential, and each intent has its own failed-attempt cap (decisions/0083).
 */
export const CHECKOUT_STARTS_PER_WINDOW = 10;
export const CHECKOUT_START_WINDOW_MS = 10 * MINUTE;

export interface HostedCheckoutDeps {
  products: ProductStore;
  accounts: { find(id: string): Promise<Account | undefined> };
  intents: IntentStore;
  clock: Clock;
  /** A live product's intent needs the live connector (refused with live_mode_unavailable without one). */
  processors: Pick<ProcessorRegistry, 'forMode'>;
  /** Shared by every process: the count after adding one for `address` in the window. */
  starts: { increment(address: string, windowStart: number): Promise<number> };
}

/** The form for an intent to pay, or the receipt of one this browser paid a moment ago. */
export type HostedSession =
  | { kind: 'pay'; product: Product; intent: PaymentIntent; reused: boolean }
  | { kind: 'receipt'; product: Product; intent: PaymentIntent };

export interface HostedCheckoutRequest {
  productId: string;
  /** The client_secret of this browser's previous intent (its cookie). */
  previousSecret: string | undefined;
  /** How long after a payment the receipt is shown instead of a new form (decisions/0082). */
  receiptMs: number;
  /** The shopper asked to buy again: no receipt, a new intent. */
  newPurchase: boolean;
  /** Where the request came from, as the HTTP layer sees it. */
  clientAddress: string;
}

/** The intent for one shopper buying one product; undefined when the product cannot be sold now. */
export async function startHostedCheckout(
  deps: HostedCheckoutDeps,
  request: HostedCheckoutRequest,
): Promise<HostedSession | undefined> {
  const found = await productForCheckout(deps.products, deps.accounts, request.productId);
  if (!found) return undefined;
  const { product, account } = found;
  const previous = request.previousSecret ? await previousIntent(deps, product, request.previousSecret) : undefined;
  if (previous && !request.newPurchase && isRecentlyPaid(previous, deps.clock.now(), request.receiptMs)) {
    return { kind: 'receipt', product, intent: previous };
  }
  if (previous && isReusable(previous, product, deps.clock.now()))
    return { kind: 'pay', product, intent: previous, reused: true };
  await countStart(deps, request.clientAddress);
  // Amount and mode come from the product: the browser has no say in either.
  const intent = await createPaymentIntent(
    deps.intents,
    deps.clock,
    account,
    {
      amount: product.amount,
      currency: product.currency,
      mode: product.mode,
      ...(product.description ? { description: product.description } : {}),
      productId: product.id,
      lifetimeMs: HOSTED_INTENT_LIFETIME_MS,
    },
    deps.processors,
  );
  return { kind: 'pay', product, intent, reused: false };
}

/** Counted per client network, as the card-testing limit is: an IPv6 client per /64 (decision 0071). */
async function countStart(deps: HostedCheckoutDeps, address: string): Promise<void> {
  const now = deps.clock.now();
  const count = await deps.starts.increment(clientNetwork(address), now - (now % CHECKOUT_START_WINDOW_MS));
  if (count > CHECKOUT_STARTS_PER_WINDOW) {
    throw new ApiError(
      'rate_limited',
      'Too many checkouts were started from this network. Try again in a few minutes.',
    );
  }
}

/** The intent a cookie names, if the secret is its own and it was for this product. */
async function previousIntent(
  deps: HostedCheckoutDeps,
  product: Product,
  secret: string,
): Promise<PaymentIntent | undefined> {
  const id = CLIENT_SECRET.exec(secret)?.[1];
  const intent = id ? await deps.intents.find(product.accountId, id) : undefined;
  if (!intent || !sameSecret(intent.clientSecret, secret) || intent.productId !== product.id) return undefined;
  return intent;
}

/** Paid by this browser within the receipt time: showing a form again would invite a second payment. */
const isRecentlyPaid = (intent: PaymentIntent, now: number, receiptMs: number) =>
  intent.status === 'succeeded' && now - intent.updatedAt < receiptMs;

/**
 * Whether the previous intent may take this shopper's payment for the product as it is now.
 * An intent being processed is not reused: a new one lets the shopper go on after an
 * abandoned 3-D Secure challenge.
 */
const isReusable = (intent: PaymentIntent, product: Product, now: number) =>
  intent.amount === product.amount &&
  intent.mode === product.mode &&
  (intent.status === 'requires_payment' || intent.status === 'failed') &&
  intent.expiresAt - now > MIN_REMAINING_MS;

function sameSecret(stored: string, given: string): boolean {
  const a = Buffer.from(stored);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}
