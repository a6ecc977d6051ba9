import type { Account } from '../accounts.ts';
import { allowedOrigins } from '../allowed-origins.ts';
import { ApiError } from '../errors.ts';
import type { PaymentIntent } from '../intents.ts';
import { type Transaction, TX_STATUS } from '../transactions.ts';
import type { ConfirmDeps } from './confirm.ts';
import { outcomeOf, type PaymentOutcome, recordOutcome } from './outcome.ts';

export interface ChallengeDeps extends ConfirmDeps {
  challenges: { findByChallengeTokenAcrossAccounts(token: string): Promise<Transaction | undefined> };
  accounts: { find(id: string): Promise<Account | undefined> };
}

export interface ChallengeView {
  merchantName: string;
  amount: number;
  currency: string;
  brand: string;
  last4: string;
  /** False once the attempt has finished: the page then only reports the outcome. */
  open: boolean;
  /** The account's allowed origins: the pages that may frame its widget, and so this page. */
  allowedOrigins: string[];
  /** A live challenge: the issuer's page (through the acquirer) to frame; null for the sandbox ACS. */
  redirectUrl: string | null;
  /** Origins that page may come from (the acquirer's and issuers'). */
  frameSources: readonly string[];
}

const notFound = () => new ApiError('challenge_invalid', 'This authentication request is unknown or has ended.');

async function load(deps: ChallengeDeps, token: string): Promise<{ tx: Transaction; intent: PaymentIntent }> {
  const tx = /^chl_[0-9A-Za-z]{32}$/.test(token)
    ? await deps.challenges.findByChallengeTokenAcrossAccounts(token)
    : undefined;
  const intent = tx && (await deps.intents.find(tx.accountId, tx.paymentIntentId));
  if (!tx || !intent) throw notFound();
  return { tx, intent };
}

/** What the sandbox ACS page shows: whom the shopper pays, how much, with which card. */
export async function challengeView(deps: ChallengeDeps, token: string): Promise<ChallengeView> {
  const { tx } = await load(deps, token);
  const account = await deps.accounts.find(tx.accountId);
  return {
    merchantName: account?.name ?? '',
    amount: tx.amount,
    currency: tx.currency,
    brand: tx.card.brand,
    last4: tx.card.last4,
    open: tx.status === TX_STATUS.pending,
    allowedOrigins: account ? allowedOrigins(account) : [],
    redirectUrl: tx.challengeRedirectUrl,
    frameSources: deps.processors.byName(tx.processor)?.frameSources ?? [],
  };
}

/**
 * The shopper is done with the challenge page: answered the sandbox ACS (the one-time
 * code, or cancel), or came back from a live issuer's page, whose result the processor
 * asks its acquirer. Asking again after it finished answers the same outcome.
 */
export async function completeChallenge(
  deps: ChallengeDeps,
  token: string,
  answer: { code?: string; cancel?: boolean },
): Promise<PaymentOutcome> {
  const { tx, intent } = await load(deps, token);
  if (tx.status !== TX_STATUS.pending) return outcomeOf(intent, tx);
  const processor = deps.processors.byName(tx.processor);
  if (!processor || !tx.processorChallengeRef) throw notFound();
  const outcome = await processor.completeChallenge(tx.processorChallengeRef, answer);
  return recordOutcome(deps, intent, tx, outcome);
}
