import {
  type Answer,
  type ApiErrorBody,
  confirm,
  fetchEncryptionKey,
  fetchIntent,
  type Outcome,
  type ShopperIntent,
} from './api.ts';
import { runChallenge } from './challenge.ts';
import { encryptCard } from './encrypt.ts';
import { CardForm, type FieldName } from './form.ts';
import { connectHost, type HostLink, type HostRefusal, type ResultMessage, type WidgetConfig } from './host.ts';
import { WidgetView } from './view.ts';

/**
 * The checkout widget: waits for the host's obolus:init, shows the intent, encrypts the
 * card in this frame and confirms it with the Obolus API, runs 3-D Secure inside the
 * widget, and tells the host how it ended. Card data never leaves except as a JWE to Obolus.
 */

const config = JSON.parse(document.getElementById('obolus-config')?.textContent ?? '{}') as WidgetConfig;
const view = new WidgetView();
const form = new CardForm();

const REFUSALS: Record<HostRefusal, string> = {
  standalone: 'This payment form opens inside a shop’s checkout page.',
  'origin-unknown': 'This payment form cannot tell which site it is on, so it stays closed.',
  'origin-not-allowed': 'This payment form is not allowed on this site.',
};

/**
 * The service cannot reach its database for a moment (a restart, a failover): the shopper is
 * told to try again in their words, not the developer's (decision 0220).
 */
const UNAVAILABLE = 'Payments are briefly unavailable. Wait a few seconds and try again.';
const WAITING = 'Payments are briefly unavailable. The form opens as soon as they are back.';
const shopperMessage = (error: ApiErrorBody) => (error.code === 'database_unavailable' ? UNAVAILABLE : error.message);
/** While it is unavailable, the intent is asked for again this often, for about a minute. */
const INTENT_RETRY_MS = 3000;
const INTENT_TRIES = 20;

/** Errors after which this widget can take no payment: the host is told and the form closes. */
const FINAL_CODES = new Set([
  'client_secret_invalid',
  'client_key_invalid',
  'mode_mismatch',
  'payment_intent_expired',
  'payment_intent_unexpected_state',
  'payment_intent_canceled',
  'too_many_attempts',
  'live_payments_unavailable',
]);

/** The shopper's part is done: paid, or authorized for the shop to capture later (capture_method manual). */
const PAID: readonly string[] = ['succeeded', 'requires_capture'];

/** A refusal that says what became of the intent since the widget read it. */
const STATUS_OF_CODE: Record<string, string> = {
  payment_intent_expired: 'expired',
  payment_intent_canceled: 'canceled',
};

const FIELD_OF_PARAM: Record<string, FieldName> = {
  'card[number]': 'number',
  'card[exp_month]': 'exp',
  'card[exp_year]': 'exp',
  'card[cvc]': 'cvc',
  'card[name]': 'name',
};

let encryptionKey: ReturnType<typeof fetchEncryptionKey> | null = null;
const key = () => {
  encryptionKey ??= fetchEncryptionKey().catch((error: unknown) => {
    encryptionKey = null;
    throw error;
  });
  return encryptionKey;
};

function boot(): void {
  view.theme(config.theme ?? 'light');
  const connection = connectHost(config, (secret, link) => void start(secret, link));
  if ('refusal' in connection) {
    // Opened on its own, the page is the widget's surface: its background is the theme's.
    if (connection.refusal === 'standalone') document.documentElement.dataset.standalone = '';
    view.notice(REFUSALS[connection.refusal]);
    return;
  }
  // The content's own height, not the document's: that one never shrinks below the frame.
  const app = document.getElementById('app') as HTMLElement;
  new ResizeObserver(() => connection.link.resize(Math.ceil(app.getBoundingClientRect().height))).observe(app);
}

async function start(secret: string, link: HostLink): Promise<void> {
  const answer = await fetchIntentPatiently(secret);
  if (!answer.ok) {
    view.notice(shopperMessage(answer.error));
    link.result({ success: false, payment_intent: null, status: null, error: publicError(answer.error) });
    return;
  }
  const intent = answer.body;
  if (!config.theme && intent.theme) view.theme(intent.theme);
  view.summary(intent);
  const mode = config.mode ?? intent.mode;
  const refusal = refusalFor(intent, mode);
  if (refusal) {
    view.notice(refusal.message);
    link.result({ success: false, payment_intent: intent.id, status: intent.status, error: refusal.error });
  } else if (PAID.includes(intent.status) || intent.status === 'processing') {
    settled(intent, mode, secret, link);
  } else {
    new Checkout(secret, mode, intent, link).open();
  }
}

/** The intent; while the service is briefly unavailable the shopper is told so, and it is asked for again. */
async function fetchIntentPatiently(secret: string): Promise<Answer<ShopperIntent>> {
  for (let tries = 1; ; tries++) {
    const answer = await fetchIntent(config.pk, secret);
    if (answer.ok && tries > 1) view.show('form');
    if (answer.ok || answer.error.code !== 'database_unavailable' || tries >= INTENT_TRIES) return answer;
    view.notice(WAITING);
    await new Promise((resolve) => setTimeout(resolve, INTENT_RETRY_MS));
  }
}

/**
 * A mount on an intent already paid or being paid still ends in a result the host can act
 * on; a 3-D Secure challenge left open (the shopper reloaded) is shown again.
 */
function settled(intent: ShopperIntent, mode: string, secret: string, link: HostLink): void {
  const transaction = intent.transaction_id ? { transaction_id: intent.transaction_id } : {};
  if (PAID.includes(intent.status)) {
    view.done('This payment has already been made.');
    link.result({ success: true, payment_intent: intent.id, status: intent.status, ...transaction });
  } else if (intent.challenge_url) {
    new Checkout(secret, mode, intent, link).resume(intent.challenge_url);
  } else {
    view.notice('This payment is already being processed. The shop will confirm it shortly.');
    link.result({ success: false, payment_intent: intent.id, status: 'processing', ...transaction });
  }
}

/** Why this intent cannot be paid in this widget, if it cannot; the host hears of those with an error. */
function refusalFor(intent: ShopperIntent, mode: string): { message: string; error: ResultMessage['error'] } | null {
  if (mode !== intent.mode) {
    // Refused before any card is typed; the confirm endpoint refuses it too.
    const message = `This checkout is in ${mode} mode but the payment was created in ${intent.mode} mode. Nothing was charged.`;
    return { message, error: { type: 'invalid_request', code: 'mode_mismatch', message } };
  }
  if (intent.status === 'expired') {
    const message = 'This payment has expired. Return to the shop to start again.';
    return { message, error: { type: 'invalid_request', code: 'payment_intent_expired', message } };
  }
  if (intent.status === 'canceled') {
    const message = 'This payment was canceled by the shop. Nothing was charged.';
    return { message, error: { type: 'invalid_request', code: 'payment_intent_canceled', message } };
  }
  return null;
}

class Checkout {
  #busy = false;
  readonly #secret: string;
  readonly #mode: string;
  readonly #intent: ShopperIntent;
  readonly #link: HostLink;
  /** Server clock minus ours, so ciphertexts are dated by the server's clock. */
  readonly #clockOffset: number;

  constructor(secret: string, mode: string, intent: ShopperIntent, link: HostLink) {
    this.#secret = secret;
    this.#mode = mode;
    this.#intent = intent;
    this.#link = link;
    this.#clockOffset = intent.server_time - Date.now();
  }

  open(): void {
    form.setEnabled(true);
    view.ready();
    // Fetched while the shopper types, after the form is usable, not before.
    void key().catch(() => undefined);
    form.form.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.#pay();
    });
  }

  /** Shows the open challenge of the attempt under way, then goes on as after a confirm. */
  resume(challengeUrl: string): void {
    this.open();
    this.#setBusy(true);
    const { id, transaction_id } = this.#intent;
    void this.#settle({
      success: false,
      status: 'requires_action',
      payment_intent: id,
      transaction_id: transaction_id ?? '',
      challenge_url: challengeUrl,
    });
  }

  async #pay(): Promise<void> {
    if (this.#busy) return;
    const card = form.read(new Date());
    if (!card) return;
    this.#setBusy(true);
    view.alert('');
    const jwe = await key()
      .then((jwk) =>
        encryptCard(jwk, card, { paymentIntent: this.#intent.id, serverNow: Date.now() + this.#clockOffset }),
      )
      .catch(() => null);
    if (jwe === null) {
      this.#setBusy(false);
      view.alert('Your card could not be secured for sending. Check your connection and try again.');
      return;
    }
    const answer = await confirm({ pk: config.pk, client_secret: this.#secret, mode: this.#mode, card: jwe });
    if (answer.ok) await this.#settle(answer.body);
    else this.#refused(answer.error);
  }

  async #settle(outcome: Outcome): Promise<void> {
    if (outcome.status === 'requires_action' && outcome.challenge_url) {
      view.show('challenge');
      const finished = await runChallenge(
        document.getElementById('challenge-slot') as HTMLElement,
        outcome.challenge_url,
      );
      view.show('form');
      return this.#settle(finished);
    }
    this.#report(outcome);
    if (PAID.includes(outcome.status)) return view.paid(this.#intent, outcome.transaction_id);
    if (outcome.status === 'processing') {
      return view.notice('Your payment is being processed. The shop will confirm it shortly.');
    }
    this.#setBusy(false);
    form.clearCard();
    view.alert(`${outcome.error?.message ?? 'The payment was declined.'} Try again or use another card.`);
    form.focus('number');
  }

  #refused(error: ApiErrorBody): void {
    const field = error.param ? FIELD_OF_PARAM[error.param] : undefined;
    this.#setBusy(false);
    if (field) {
      form.setError(field, error.message);
      form.focus(field);
      return;
    }
    if (error.code === 'card_encryption_invalid') encryptionKey = null;
    const final = FINAL_CODES.has(error.code);
    const status = STATUS_OF_CODE[error.code] ?? this.#intent.status;
    this.#link.result({ success: false, payment_intent: this.#intent.id, status, error: publicError(error) });
    if (final) view.notice(shopperMessage(error));
    else view.alert(shopperMessage(error));
  }

  #report(outcome: Outcome): void {
    this.#link.result({
      success: outcome.success,
      payment_intent: outcome.payment_intent,
      status: outcome.status,
      transaction_id: outcome.transaction_id,
      ...(outcome.error ? { error: publicError(outcome.error) } : {}),
    });
  }

  #setBusy(busy: boolean): void {
    this.#busy = busy;
    form.setEnabled(!busy);
    view.busy(busy);
  }
}

/** Only type, code and message reach the host page: no param, no request id. */
const publicError = (error: { type: string; code: string; message: string }) => ({
  type: error.type,
  code: error.code,
  message: error.message,
});

boot();
