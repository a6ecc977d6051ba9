import { describe, expect, it } from 'vitest';
import { MAX_BANK_LENGTH, normalizeIssuer } from '../src/domain/payments/issuer-details.ts';

/** Issue 10, item 4: what an acquirer says about the card is cosmetic and never blocks an approval. */
describe('normalizeIssuer', () => {
  it('keeps tidy details as they are', () => {
    expect(normalizeIssuer({ brand: 'Visa', bank: 'Chase', country: 'US', funding: 'credit' })).toEqual({
      brand: 'Visa',
      bank: 'Chase',
      country: 'US',
      funding: 'credit',
    });
  });

  it('upper-cases a lower-case country and drops one that is not two letters', () => {
    expect(normalizeIssuer({ country: 'gb' }).country).toBe('GB');
    expect(normalizeIssuer({ country: ' de ' }).country).toBe('DE');
    expect(normalizeIssuer({ country: 'GBR' }).country).toBeNull();
    expect(normalizeIssuer({ country: '1A' }).country).toBeNull();
  });

  it(`cuts a bank name to ${MAX_BANK_LENGTH} characters (whole code points) and collapses control characters`, () => {
    const long = 'Ü'.repeat(MAX_BANK_LENGTH + 50);
    expect(normalizeIssuer({ bank: long }).bank).toBe('Ü'.repeat(MAX_BANK_LENGTH));
    expect(normalizeIssuer({ bank: '😀'.repeat(MAX_BANK_LENGTH + 1) }).bank).toHaveLength(MAX_BANK_LENGTH * 2);
    expect(normalizeIssuer({ bank: 'First\u0000 Bank\n of\tTests' }).bank).toBe('First Bank of Tests');
    expect(normalizeIssuer({ bank: `${'x'.repeat(MAX_BANK_LENGTH)}` }).bank).toHaveLength(MAX_BANK_LENGTH);
  });

  it('treats missing, empty and non-text details as absent', () => {
    expect(normalizeIssuer(null)).toEqual({ brand: null, bank: null, country: null, funding: null });
    expect(normalizeIssuer({ brand: '  ', bank: '', country: null })).toEqual({
      brand: null,
      bank: null,
      country: null,
      funding: null,
    });
    expect(normalizeIssuer({ bank: 42 as unknown as string }).bank).toBeNull();
  });
});
