import {
  brandOf,
  CARD_NAME_MAX,
  caretAfterDigits,
  cvcError,
  digitsOf,
  formatCvc,
  formatExpiry,
  formatNumber,
  nameError,
  numberError,
  parseExpiry,
} from './card-input.ts';
import type { CardPayload } from './encrypt.ts';

export type FieldName = 'number' | 'exp' | 'cvc' | 'name';
const FIELDS: FieldName[] = ['number', 'exp', 'cvc', 'name'];

const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

/**
 * The card fields: live formatting, the brand badge, and errors shown beside the field
 * they are about (announced through each error's aria-live and tied by aria-describedby).
 * A field's error shows once the shopper leaves it or submits, not while typing.
 */
export class CardForm {
  readonly form = byId<HTMLFormElement>('pay-form');
  readonly #inputs = Object.fromEntries(FIELDS.map((f) => [f, byId<HTMLInputElement>(f)])) as Record<
    FieldName,
    HTMLInputElement
  >;
  readonly #brand = byId<HTMLElement>('brand');

  constructor() {
    const { number, exp, cvc, name } = this.#inputs;
    this.#formatOnInput(number, (value) => formatNumber(value), true);
    this.#formatOnInput(exp, (value, deleting) => formatExpiry(value, deleting), true);
    this.#formatOnInput(cvc, (value) => formatCvc(value, this.#digits()), false);
    number.addEventListener('input', () => this.#showBrand());
    name.maxLength = CARD_NAME_MAX;
    for (const field of FIELDS) {
      this.#inputs[field].addEventListener('blur', () => {
        if (this.#inputs[field].value !== '') this.setError(field, this.#check(field));
      });
      this.#inputs[field].addEventListener('input', () => {
        if (this.#inputs[field].getAttribute('aria-invalid') === 'true') this.setError(field, this.#check(field));
      });
    }
  }

  setEnabled(enabled: boolean): void {
    for (const field of FIELDS) {
      this.#inputs[field].disabled = false;
      this.#inputs[field].readOnly = !enabled;
    }
  }

  focus(field: FieldName = 'number'): void {
    this.#inputs[field].focus();
  }

  setError(field: FieldName, message: string | null): void {
    this.#inputs[field].setAttribute('aria-invalid', message ? 'true' : 'false');
    byId(`${field}-error`).textContent = message ?? '';
  }

  /** The card to encrypt, or null after showing every error and focusing the first. */
  read(now: Date): CardPayload | null {
    const errors = FIELDS.map((field) => [field, this.#check(field, now)] as const);
    for (const [field, message] of errors) this.setError(field, message);
    const first = errors.find(([, message]) => message !== null);
    if (first) {
      this.focus(first[0]);
      return null;
    }
    const expiry = parseExpiry(this.#inputs.exp.value, now) as { month: number; year: number };
    return {
      number: this.#digits(),
      exp_month: expiry.month,
      exp_year: expiry.year,
      cvc: this.#inputs.cvc.value,
      name: this.#inputs.name.value.trim(),
    };
  }

  /** After a decline the shopper usually tries another card: keep the name, clear the rest. */
  clearCard(): void {
    for (const field of ['number', 'exp', 'cvc'] as const) this.#inputs[field].value = '';
    this.#showBrand();
  }

  #digits(): string {
    return digitsOf(this.#inputs.number.value);
  }

  #check(field: FieldName, now = new Date()): string | null {
    const value = this.#inputs[field].value;
    if (field === 'number') return numberError(value);
    if (field === 'exp') {
      const expiry = parseExpiry(value, now);
      return 'error' in expiry ? expiry.error : null;
    }
    if (field === 'cvc') return cvcError(value, this.#digits());
    return nameError(value);
  }

  #showBrand(): void {
    const brand = brandOf(this.#digits());
    this.#brand.dataset.brand = brand?.id ?? '';
    // The badge shows a short name that fits it ("Amex"); its accessible name is the full one.
    this.#brand.textContent = brand ? (brand.short ?? brand.label) : '';
    this.#brand.setAttribute('aria-label', brand ? brand.label : '');
  }

  /** Reformats as the shopper types, keeping the caret after the same digit it followed. */
  #formatOnInput(input: HTMLInputElement, format: (value: string, deleting: boolean) => string, keepCaret: boolean) {
    input.addEventListener('input', (event) => {
      const deleting = (event as InputEvent).inputType?.startsWith('delete') ?? false;
      const caret = input.selectionStart ?? input.value.length;
      const digitsBefore = digitsOf(input.value.slice(0, caret)).length;
      const atEnd = caret === input.value.length;
      const formatted = format(input.value, deleting);
      if (formatted === input.value) return;
      input.value = formatted;
      if (keepCaret && !atEnd) {
        const position = caretAfterDigits(formatted, digitsBefore);
        input.setSelectionRange(position, position);
      }
    });
  }
}
