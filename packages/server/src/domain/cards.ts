import cardValidator from 'card-validator';
import { HOUR } from '../clock.ts';
import { ApiError } from './errors.ts';
import type { CardDetails } from './payments/ports.ts';

/**
 * Checks on a decrypted card made before any processor sees it. Errors name the field but
 * never echo its value: the number and the CVC must not reach a response or a log.
 */

/** The card as the widget sends it, before anything about it is trusted. */
export interface CardInput {
  number?: unknown;
  exp_month?: unknown;
  exp_year?: unknown;
  cvc?: unknown;
  name?: unknown;
}

/** A card that passed every check, with its scheme's display name (Visa, Mastercard, …). */
export interface CheckedCard extends CardDetails {
  brand: string;
}

export const CARD_NAME_MAX_LENGTH = 100;
/** Issuers do not print cards valid for longer than this; a later year is a typo. */
export const CARD_MAX_YEARS_AHEAD = 20;
/**
 * A card is good until the end of its expiry month, and the shopper may be anywhere:
 * UTC-12 is the last place on Earth where a month is still running.
 */
const LATEST_OFFSET_MS = 12 * HOUR;

export function checkCard(input: CardInput, now: number): CheckedCard {
  const { number, brand, cvcSize } = checkNumber(input.number);
  const { expMonth, expYear } = checkExpiry(input.exp_month, input.exp_year, now);
  const cvc = checkCvc(input.cvc, cvcSize, brand);
  const name = checkName(input.name);
  return { number, expMonth, expYear, cvc, name, brand };
}

/** Display brand of a card number, or null when no scheme matches it uniquely. */
export function brandOf(number: string): string | null {
  return cardValidator.number(number).card?.niceType ?? null;
}

/** First 6 and last 4 digits kept, every digit between masked: the only PAN form we keep. */
export function maskPan(number: string): string {
  const digits = number.replace(/[\s-]/g, '');
  return binOf(digits) + '*'.repeat(Math.max(0, digits.length - 10)) + last4Of(digits);
}

export const binOf = (number: string) => number.replace(/[\s-]/g, '').slice(0, 6);
export const last4Of = (number: string) => number.replace(/[\s-]/g, '').slice(-4);

function checkNumber(value: unknown): { number: string; brand: string; cvcSize: number } {
  const fail = (message: string) => new ApiError('card_number_invalid', message, 'card[number]');
  if (typeof value !== 'string' || value.trim() === '') throw fail('Enter the card number.');
  const number = value.replace(/[\s-]/g, '');
  if (!/^\d{12,19}$/.test(number)) throw fail('The card number must be 12 to 19 digits.');
  const { card, isValid } = cardValidator.number(number);
  if (!card) throw fail('The card number does not belong to a card scheme we accept.');
  if (!isValid) throw fail('The card number is incorrect; check it for typos.');
  return { number, brand: card.niceType, cvcSize: card.code.size };
}

function checkExpiry(month: unknown, year: unknown, now: number): { expMonth: number; expYear: number } {
  const expMonth = parseMonth(month);
  const expYear = parseYear(year);
  const today = new Date(now - LATEST_OFFSET_MS);
  const thisYear = today.getUTCFullYear();
  const thisMonth = today.getUTCMonth() + 1;
  if (expYear < thisYear) throw expiryError('card[exp_year]', 'The card has expired.');
  if (expYear === thisYear && expMonth < thisMonth) {
    throw expiryError('card[exp_month]', 'The card has expired.');
  }
  if (expYear > thisYear + CARD_MAX_YEARS_AHEAD) {
    throw expiryError('card[exp_year]', `The expiry year must be within ${CARD_MAX_YEARS_AHEAD} years.`);
  }
  return { expMonth, expYear };
}

function parseMonth(value: unknown): number {
  const month = toInteger(value, /^\d{1,2}$/);
  if (month === null || month < 1 || month > 12) {
    throw expiryError('card[exp_month]', 'The expiry month must be a number from 1 to 12.');
  }
  return month;
}

/** Accepts 2 or 4 digits; a 2-digit year is in this century, as printed on cards. */
function parseYear(value: unknown): number {
  const year = toInteger(value, /^(\d{2}|\d{4})$/);
  if (year !== null && year <= 99) return 2000 + year;
  if (year !== null && year >= 1000 && year <= 9999) return year;
  throw expiryError('card[exp_year]', 'The expiry year must have 2 or 4 digits.');
}

function toInteger(value: unknown, digits: RegExp): number | null {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value : null;
  if (typeof value === 'string' && digits.test(value.trim())) return Number(value.trim());
  return null;
}

const expiryError = (param: string, message: string) => new ApiError('card_expiry_invalid', message, param);

function checkCvc(value: unknown, size: number, brand: string): string {
  // A number would have lost leading zeros, so only a string of digits is a CVC.
  if (typeof value === 'string' && cardValidator.cvv(value, size).isValid) return value;
  throw new ApiError('card_cvc_invalid', `The security code must be ${size} digits for ${brand}.`, 'card[cvc]');
}

function checkName(value: unknown): string {
  const name = typeof value === 'string' ? value.trim() : '';
  if (name === '') throw new ApiError('card_name_missing', 'Enter the name on the card.', 'card[name]');
  if ([...name].length > CARD_NAME_MAX_LENGTH) {
    throw new ApiError(
      'card_name_invalid',
      `The name on the card must be at most ${CARD_NAME_MAX_LENGTH} characters.`,
      'card[name]',
    );
  }
  return name;
}
