/**
 * What the card form knows about card text before anything is sent: brand, grouping,
 * Luhn, expiry and CVC rules. Pure functions, so they are tested without a browser.
 * The server checks everything again; these only give the shopper early, inline help.
 */

export interface Brand {
  id: string;
  label: string;
  /** What the badge shows when the full name would not fit it. */
  short?: string;
  pattern: RegExp;
  lengths: number[];
  cvc: number;
  /** Positions after which a space is shown. */
  gaps: number[];
}

const GAPS_4 = [4, 8, 12, 16];
export const BRANDS: Brand[] = [
  { id: 'amex', label: 'American Express', short: 'Amex', pattern: /^3[47]/, lengths: [15], cvc: 4, gaps: [4, 10] },
  { id: 'visa', label: 'Visa', pattern: /^4/, lengths: [13, 16, 19], cvc: 3, gaps: GAPS_4 },
  {
    id: 'mastercard',
    label: 'Mastercard',
    pattern: /^(5[1-5]|222[1-9]|22[3-9]|2[3-6]|27[01]|2720)/,
    lengths: [16],
    cvc: 3,
    gaps: GAPS_4,
  },
  {
    id: 'discover',
    label: 'Discover',
    pattern: /^(6011|65|64[4-9]|622)/,
    lengths: [16, 19],
    cvc: 3,
    gaps: GAPS_4,
  },
  { id: 'diners', label: 'Diners Club', pattern: /^(36|38|30[0-5])/, lengths: [14, 16, 19], cvc: 3, gaps: [4, 10] },
  { id: 'jcb', label: 'JCB', pattern: /^35(2[89]|[3-8])/, lengths: [16, 17, 18, 19], cvc: 3, gaps: GAPS_4 },
  { id: 'unionpay', label: 'UnionPay', pattern: /^62/, lengths: [16, 17, 18, 19], cvc: 3, gaps: GAPS_4 },
];

export const MAX_PAN_DIGITS = 19;
export const CARD_NAME_MAX = 100;
/** As the server: issuers do not print cards valid for longer. */
export const MAX_YEARS_AHEAD = 20;

export const digitsOf = (text: string) => text.replace(/\D/g, '');

export function brandOf(digits: string): Brand | null {
  return BRANDS.find((brand) => brand.pattern.test(digits)) ?? null;
}

/** "4242424242424242" -> "4242 4242 4242 4242"; Amex "3782 822463 10005". */
export function formatNumber(text: string): string {
  const digits = digitsOf(text);
  const brand = brandOf(digits);
  const max = brand ? Math.max(...brand.lengths) : MAX_PAN_DIGITS;
  const gaps = brand?.gaps ?? GAPS_4;
  let out = '';
  for (const [i, digit] of [...digits.slice(0, max)].entries()) {
    if (gaps.includes(i)) out += ' ';
    out += digit;
  }
  return out;
}

export function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return digits.length > 0 && sum % 10 === 0;
}

/** An error message for the shopper, or null when the number may be right. */
export function numberError(text: string): string | null {
  const digits = digitsOf(text);
  if (digits === '') return 'Enter your card number.';
  const brand = brandOf(digits);
  const complete = brand ? brand.lengths.includes(digits.length) : digits.length >= 12;
  if (!complete) return 'Your card number is incomplete.';
  if (!luhn(digits)) return 'Your card number is not valid. Check it for typos.';
  return null;
}

/**
 * "4" -> "04 / ", "1225" -> "12 / 25". Autofill may give "12/2030": its year is cut to
 * two digits, as the field shows. While deleting, the separator goes with the month's
 * last digit rather than coming back at once.
 */
export function formatExpiry(text: string, deleting = false): string {
  const long = /^\s*(\d{1,2})\s*\/\s*(\d{4})\s*$/.exec(text);
  let digits = long ? (long[1] as string).padStart(2, '0') + (long[2] as string).slice(2) : digitsOf(text);
  if (/^[2-9]/.test(digits)) digits = `0${digits}`;
  digits = digits.slice(0, 4);
  if (digits.length < 2 || (digits.length === 2 && deleting)) return digits;
  return `${digits.slice(0, 2)} / ${digits.slice(2)}`;
}

export interface Expiry {
  month: number;
  year: number;
}

export function parseExpiry(text: string, now: Date): Expiry | { error: string } {
  const digits = digitsOf(text);
  if (digits === '') return { error: 'Enter the expiry date.' };
  if (digits.length !== 4) return { error: 'Your card’s expiry date is incomplete.' };
  const month = Number(digits.slice(0, 2));
  const year = 2000 + Number(digits.slice(2));
  if (month < 1 || month > 12) return { error: 'The expiry month must be from 01 to 12.' };
  const thisYear = now.getFullYear();
  if (year < thisYear || (year === thisYear && month < now.getMonth() + 1)) {
    return { error: 'Your card has expired.' };
  }
  if (year > thisYear + MAX_YEARS_AHEAD) return { error: 'The expiry year is too far in the future.' };
  return { month, year };
}

export function formatCvc(text: string, digits: string): string {
  return digitsOf(text).slice(0, brandOf(digits)?.cvc ?? 4);
}

export function cvcError(cvc: string, numberDigits: string): string | null {
  if (cvc === '') return 'Enter the security code.';
  const size = brandOf(numberDigits)?.cvc;
  if (size !== undefined ? cvc.length !== size : cvc.length < 3) {
    return `The security code is ${size ?? '3 or 4'} digits.`;
  }
  return null;
}

export function nameError(name: string): string | null {
  if (name.trim() === '') return 'Enter the name on your card.';
  if ([...name.trim()].length > CARD_NAME_MAX) return `The name must be at most ${CARD_NAME_MAX} characters.`;
  return null;
}

/**
 * Where the caret belongs after reformatting: just after the same number of digits as
 * before, so typing in the middle of a number does not throw the caret to its end.
 */
export function caretAfterDigits(formatted: string, digitsBefore: number): number {
  if (digitsBefore === 0) return 0;
  let seen = 0;
  for (let i = 0; i < formatted.length; i++) {
    if (/\d/.test(formatted[i] as string)) seen++;
    if (seen === digitsBefore) return i + 1;
  }
  return formatted.length;
}
