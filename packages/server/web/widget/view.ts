import { formatAmount } from './amount.ts';
import type { ShopperIntent } from './api.ts';

const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

/**
 * Which part of the widget shows: the card form, the bank's challenge, the success note,
 * or a notice that ends the checkout (bad link, expired, wrong mode).
 */
export type Panel = 'form' | 'challenge' | 'done' | 'notice';

export class WidgetView {
  readonly #pay = byId<HTMLButtonElement>('pay');
  readonly #alert = byId<HTMLElement>('alert');
  #payLabel = 'Pay';

  theme(theme: 'light' | 'dark'): void {
    document.documentElement.dataset.theme = theme;
  }

  summary(intent: ShopperIntent): void {
    const amount = formatAmount(intent.amount, intent.currency);
    byId('merchant').textContent = intent.merchant_name;
    byId('amount').textContent = amount;
    byId('desc').textContent = intent.description ?? '';
    byId('mode-badge').hidden = intent.mode !== 'sandbox';
    this.#payLabel = `Pay ${amount}`;
    this.#pay.textContent = this.#payLabel;
  }

  show(panel: Panel): void {
    byId('pay-form').hidden = panel !== 'form';
    byId('challenge').hidden = panel !== 'challenge';
    byId('done').hidden = panel !== 'done';
    byId('notice').hidden = panel !== 'notice';
    if (panel !== 'form') this.alert('');
    if (panel === 'done' || panel === 'challenge') byId(`${panel}-title`).focus();
  }

  /** While a payment runs the button says so and cannot be pressed again. */
  busy(busy: boolean): void {
    this.#pay.disabled = busy;
    this.#pay.setAttribute('aria-busy', String(busy));
    this.#pay.textContent = busy ? 'Processing…' : this.#payLabel;
  }

  ready(): void {
    byId('app').removeAttribute('aria-busy');
    this.#pay.disabled = false;
    // User Timing mark: the benchmark (bench/widget.ts) reads when the form became usable.
    performance.mark('obolus:interactive');
  }

  /** A message about the whole form (a decline, a network error), announced at once. */
  alert(message: string): void {
    this.#alert.textContent = message;
  }

  done(message: string): void {
    byId('done-detail').textContent = message;
    this.show('done');
  }

  /**
   * Success: what was paid, to whom, the merchant's order reference and the transaction id the
   * shopper can quote, all from what the widget already holds (no reload).
   */
  paid(intent: ShopperIntent, transactionId: string | undefined): void {
    const amount = byId('done-amount');
    amount.textContent = formatAmount(intent.amount, intent.currency);
    amount.hidden = false;
    byId('done-order').textContent = intent.reference ?? '';
    byId('done-order-row').hidden = !intent.reference;
    byId('done-transaction').textContent = transactionId ?? '';
    byId('done-transaction-row').hidden = !transactionId;
    byId('done-ids').hidden = !intent.reference && !transactionId;
    this.done(`${intent.merchant_name} has received your payment.`);
  }

  /** Ends the checkout with a message: nothing more can be done in this widget. */
  notice(message: string): void {
    byId('app').removeAttribute('aria-busy');
    byId('notice-text').textContent = message;
    this.show('notice');
  }
}
