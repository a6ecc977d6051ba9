import type { IssuerInfo } from './ports.ts';

export const MAX_BANK_LENGTH = 100;
const MAX_BRAND_LENGTH = 40;

/** Card details as they go onto the transaction record: each one present and tidy, or absent. */
export interface NormalIssuer {
  brand: string | null;
  bank: string | null;
  country: string | null;
  funding: string | null;
}

/**
 * Tidies what an acquirer says about the card. These details are cosmetic: an odd value
 * (a bank name of 300 characters, a lower-case country, a brand we do not know) is cut,
 * upper-cased or dropped, never a reason to doubt the payment itself (issue 10, item 4).
 */
export function normalizeIssuer(issuer: IssuerInfo | null | undefined): NormalIssuer {
  return {
    brand: text(issuer?.brand, MAX_BRAND_LENGTH),
    bank: text(issuer?.bank, MAX_BANK_LENGTH),
    country: countryOf(issuer?.country),
    funding: text(issuer?.funding, 16)?.toLowerCase() ?? null,
  };
}

/** Printable text, whitespace collapsed, cut to `max` characters (whole code points); empty is absent. */
function text(value: unknown, max: number): string | null {
  if (typeof value !== 'string') return null;
  // Control characters (and every other kind of space) become one space.
  const clean = value.replace(/[\p{Cc}\s]+/gu, ' ').trim();
  if (clean === '') return null;
  return Array.from(clean).slice(0, max).join('').trim();
}

function countryOf(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const code = value.trim().toUpperCase();
  return /^[A-Z]{2}$/.test(code) ? code : null;
}
