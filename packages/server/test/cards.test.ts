import { describe, expect, it } from 'vitest';
import { HOUR } from '../src/clock.ts';
import { SANDBOX_TEST_CARDS } from '../src/connectors/sandbox/sandbox.ts';
import { binOf, brandOf, type CardInput, checkCard, last4Of, maskPan } from '../src/domain/cards.ts';
import { ApiError } from '../src/domain/errors.ts';

// 15 June 2026, midday UTC: far from any month edge unless a test says otherwise.
const NOW = Date.UTC(2026, 5, 15, 12);

const visa: CardInput = {
  number: '4242424242424242',
  exp_month: 12,
  exp_year: 2030,
  cvc: '123',
  name: 'Ada Lovelace',
};
const amex: CardInput = { ...visa, number: '378282246310005', cvc: '1234' };

function errorOf(input: CardInput, now = NOW): ApiError {
  try {
    checkCard(input, now);
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected checkCard to throw');
}

describe('checkCard: number', () => {
  it('accepts a valid Visa and names its brand', () => {
    expect(checkCard(visa, NOW)).toEqual({
      number: '4242424242424242',
      expMonth: 12,
      expYear: 2030,
      cvc: '123',
      name: 'Ada Lovelace',
      brand: 'Visa',
    });
  });

  it.each(SANDBOX_TEST_CARDS)('accepts test card $number as $brand', (card) => {
    const cvc = card.brand === 'American Express' ? '1234' : '123';
    expect(checkCard({ ...visa, number: card.number, cvc }, NOW).brand).toBe(card.brand);
  });

  it('strips spaces and dashes', () => {
    expect(checkCard({ ...visa, number: ' 4242 4242-4242 4242 ' }, NOW).number).toBe('4242424242424242');
  });

  it('detects Discover', () => {
    expect(brandOf('6011111111111117')).toBe('Discover');
  });

  it.each([
    ['a Luhn failure', '4242424242424241', /typos/],
    ['letters', '4242abcd42424242', /12 to 19 digits/],
    ['too short', '42424242424', /12 to 19 digits/],
    ['an unknown scheme', '9999999999999995', /card scheme/],
    ['an empty string', '', /Enter the card number/],
    ['a number type', 4242424242424242, /Enter the card number/],
    ['nothing', undefined, /Enter the card number/],
  ])('refuses %s', (_, number, message) => {
    const error = errorOf({ ...visa, number });
    expect(error.code).toBe('card_number_invalid');
    expect(error.param).toBe('card[number]');
    expect(error.message).toMatch(message);
  });

  it('never echoes the number in its error', () => {
    expect(errorOf({ ...visa, number: '4242424242424241' }).message).not.toContain('4242');
  });
});

describe('checkCard: expiry', () => {
  it('accepts a card that expires this month', () => {
    expect(checkCard({ ...visa, exp_month: 6, exp_year: 2026 }, NOW).expMonth).toBe(6);
  });

  it('refuses a card that expired last month, naming exp_month', () => {
    const error = errorOf({ ...visa, exp_month: 5, exp_year: 2026 });
    expect(error.code).toBe('card_expiry_invalid');
    expect(error.param).toBe('card[exp_month]');
  });

  it('refuses a card that expired last year, naming exp_year', () => {
    const error = errorOf({ ...visa, exp_month: 12, exp_year: 2025 });
    expect(error.code).toBe('card_expiry_invalid');
    expect(error.param).toBe('card[exp_year]');
  });

  it('keeps a card valid while its month still runs somewhere (UTC-12)', () => {
    const firstOfJuly = Date.UTC(2026, 6, 1);
    expect(checkCard({ ...visa, exp_month: 6, exp_year: 26 }, firstOfJuly + 11 * HOUR).expYear).toBe(2026);
    expect(errorOf({ ...visa, exp_month: 6, exp_year: 26 }, firstOfJuly + 12 * HOUR).param).toBe('card[exp_month]');
  });

  it.each([
    ['2-digit number', 30, 2030],
    ['2-digit string', '30', 2030],
    ['4-digit number', 2030, 2030],
    ['4-digit string', ' 2030 ', 2030],
  ])('reads exp_year as a %s', (_, exp_year, expected) => {
    expect(checkCard({ ...visa, exp_year }, NOW).expYear).toBe(expected);
  });

  it.each([
    ['3 digits', '203'],
    ['a fraction', 2030.5],
    ['text', 'soon'],
    ['nothing', undefined],
  ])('refuses exp_year as %s', (_, exp_year) => {
    const error = errorOf({ ...visa, exp_year });
    expect(error.code).toBe('card_expiry_invalid');
    expect(error.param).toBe('card[exp_year]');
  });

  it('refuses a year more than 20 years ahead, and accepts exactly 20', () => {
    expect(checkCard({ ...visa, exp_year: 2046 }, NOW).expYear).toBe(2046);
    expect(errorOf({ ...visa, exp_year: 2047 }).param).toBe('card[exp_year]');
  });

  it.each([1, 12, '1', '01', '12'])('accepts exp_month %j', (exp_month) => {
    expect(checkCard({ ...visa, exp_month }, NOW).expMonth).toBe(Number(exp_month));
  });

  it.each([0, 13, '0', '13', '1a', 1.5, null])('refuses exp_month %j', (exp_month) => {
    const error = errorOf({ ...visa, exp_month });
    expect(error.code).toBe('card_expiry_invalid');
    expect(error.param).toBe('card[exp_month]');
  });
});

describe('checkCard: CVC', () => {
  it('takes 3 digits for Visa and 4 for American Express', () => {
    expect(checkCard(visa, NOW).cvc).toBe('123');
    expect(checkCard(amex, NOW).cvc).toBe('1234');
  });

  it.each([
    ['4 digits for Visa', visa, '1234', /3 digits for Visa/],
    ['2 digits for Visa', visa, '12', /3 digits for Visa/],
    ['3 digits for Amex', amex, '123', /4 digits for American Express/],
    ['letters', visa, '12a', /3 digits/],
    ['a number type', visa, 123, /3 digits/],
    ['nothing', visa, undefined, /3 digits/],
  ])('refuses %s', (_, card, cvc, message) => {
    const error = errorOf({ ...card, cvc });
    expect(error.code).toBe('card_cvc_invalid');
    expect(error.param).toBe('card[cvc]');
    expect(error.message).toMatch(message);
  });

  it('never echoes the CVC in its error', () => {
    expect(errorOf({ ...visa, cvc: '9876' }).message).not.toContain('9876');
  });
});

describe('checkCard: name', () => {
  it('trims the name', () => {
    expect(checkCard({ ...visa, name: '  Ada Lovelace ' }, NOW).name).toBe('Ada Lovelace');
  });

  it.each([
    ['empty', ''],
    ['whitespace', ' \t '],
    ['missing', undefined],
    ['not a string', 42],
  ])('refuses a name that is %s', (_, name) => {
    const error = errorOf({ ...visa, name });
    expect(error.code).toBe('card_name_missing');
    expect(error.param).toBe('card[name]');
  });

  it('accepts 100 characters and refuses 101', () => {
    expect(checkCard({ ...visa, name: 'é'.repeat(100) }, NOW).name).toHaveLength(100);
    const error = errorOf({ ...visa, name: 'a'.repeat(101) });
    expect(error.code).toBe('card_name_invalid');
    expect(error.param).toBe('card[name]');
  });

  it('accepts a 1-character name', () => {
    expect(checkCard({ ...visa, name: 'X' }, NOW).name).toBe('X');
  });
});

describe('PAN masking', () => {
  it('keeps first 6 and last 4 of a 16-digit number', () => {
    expect(maskPan('4242424242424242')).toBe('424242******4242');
  });

  it('keeps first 6 and last 4 of a 15-digit number', () => {
    expect(maskPan('378282246310005')).toBe('378282*****0005');
  });

  it('ignores spaces and dashes', () => {
    expect(maskPan('4242 4242-4242 4242')).toBe('424242******4242');
  });

  it('splits BIN and last 4', () => {
    expect(binOf('378282246310005')).toBe('378282');
    expect(last4Of('378282246310005')).toBe('0005');
  });
});
