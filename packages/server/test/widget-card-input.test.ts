import { describe, expect, it } from 'vitest';
import { formatMoney } from '../src/money.ts';
import { formatAmount } from '../web/widget/amount.ts';
import {
  brandOf,
  caretAfterDigits,
  cvcError,
  formatExpiry,
  formatNumber,
  luhn,
  nameError,
  numberError,
  parseExpiry,
} from '../web/widget/card-input.ts';

/** The widget's inline help: what a shopper sees while typing, before the server checks again. */
describe('card number', () => {
  it.each([
    ['4242424242424242', '4242 4242 4242 4242', 'visa'],
    ['378282246310005', '3782 822463 10005', 'amex'],
    ['5555555555554444', '5555 5555 5555 4444', 'mastercard'],
    ['2223003122003222', '2223 0031 2200 3222', 'mastercard'],
    ['4242-4242 4242x4242', '4242 4242 4242 4242', 'visa'],
    ['42424242424242424242424', '4242 4242 4242 4242 424', 'visa'],
    ['3782822463100051111', '3782 822463 10005', 'amex'],
  ])('%s is shown as %s (%s)', (typed, shown, brand) => {
    expect(formatNumber(typed)).toBe(shown);
    expect(brandOf(typed.replace(/\D/g, ''))?.id).toBe(brand);
  });

  it('an unknown brand is grouped by four and has no badge', () => {
    expect(formatNumber('9999999999')).toBe('9999 9999 99');
    expect(brandOf('9999')).toBeNull();
  });

  it('checks length for the brand and the Luhn digit', () => {
    expect(luhn('4242424242424242')).toBe(true);
    expect(luhn('4242424242424241')).toBe(false);
    expect(luhn('')).toBe(false);
    expect(numberError('')).toBe('Enter your card number.');
    expect(numberError('4242 4242 4242 424')).toBe('Your card number is incomplete.');
    expect(numberError('4242 4242 4242 4241')).toMatch(/not valid/);
    expect(numberError('4242 4242 4242 4242')).toBeNull();
    expect(numberError('378282246310005')).toBeNull();
    expect(numberError('37828224631000')).toBe('Your card number is incomplete.');
  });
});

describe('expiry', () => {
  const now = new Date(2026, 5, 15); // June 2026

  it.each([
    ['1', false, '1'],
    ['4', false, '04 / '],
    ['12', false, '12 / '],
    ['12 /', true, '12'],
    ['12 / 3', false, '12 / 3'],
    ['1230', false, '12 / 30'],
    ['12/2030', false, '12 / 30'],
    ['1/2031', false, '01 / 31'],
    ['12 / 305', false, '12 / 30'],
  ])('typing %j (deleting: %s) shows %j', (typed, deleting, shown) => {
    expect(formatExpiry(typed, deleting)).toBe(shown);
  });

  it('this month is still good, last month has expired', () => {
    expect(parseExpiry('06 / 26', now)).toEqual({ month: 6, year: 2026 });
    expect(parseExpiry('05 / 26', now)).toEqual({ error: 'Your card has expired.' });
    expect(parseExpiry('12 / 25', now)).toEqual({ error: 'Your card has expired.' });
  });

  it('at most 20 years ahead, months 01 to 12, four digits', () => {
    expect(parseExpiry('12 / 46', now)).toEqual({ month: 12, year: 2046 });
    expect(parseExpiry('01 / 47', now)).toEqual({ error: 'The expiry year is too far in the future.' });
    expect(parseExpiry('00 / 30', now)).toMatchObject({ error: expect.stringMatching(/month/) });
    expect(parseExpiry('13 / 30', now)).toMatchObject({ error: expect.stringMatching(/month/) });
    expect(parseExpiry('12 / 3', now)).toMatchObject({ error: expect.stringMatching(/incomplete/) });
    expect(parseExpiry('', now)).toEqual({ error: 'Enter the expiry date.' });
  });
});

describe('security code and name', () => {
  it('is 3 digits, 4 for American Express', () => {
    expect(cvcError('123', '4242424242424242')).toBeNull();
    expect(cvcError('12', '4242424242424242')).toBe('The security code is 3 digits.');
    expect(cvcError('1234', '4242424242424242')).toBe('The security code is 3 digits.');
    expect(cvcError('1234', '378282246310005')).toBeNull();
    expect(cvcError('123', '378282246310005')).toBe('The security code is 4 digits.');
    expect(cvcError('', '4242')).toBe('Enter the security code.');
  });

  it('needs a name of 1 to 100 characters', () => {
    expect(nameError('  ')).toBe('Enter the name on your card.');
    expect(nameError('A')).toBeNull();
    expect(nameError('é'.repeat(100))).toBeNull();
    expect(nameError('é'.repeat(101))).toMatch(/at most 100/);
  });
});

describe('caret', () => {
  it('stays after the digit it followed when spaces are added', () => {
    // "4242 4242|" typed a digit in the middle: it lands after the 9th digit.
    expect(caretAfterDigits('4242 4242 4242 4242', 9)).toBe(11);
    expect(caretAfterDigits('4242 4242', 4)).toBe(4);
    expect(caretAfterDigits('4242', 0)).toBe(0);
    expect(caretAfterDigits('4242', 9)).toBe(4);
  });
});

describe('amount', () => {
  it.each([1, 99, 100, 2000, 123456, 100000, 99_999_999])('%i cents reads as the server writes it', (minor) => {
    expect(formatAmount(minor, 'USD')).toBe(formatMoney(minor, 'USD'));
  });
});
