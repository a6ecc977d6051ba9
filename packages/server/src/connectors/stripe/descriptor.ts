import type { DescriptorCheck } from '../../domain/payments/ports.ts';

/**
 * Stripe's rules for a card statement (docs.stripe.com/get-started/account/statement-descriptors,
 * decision 0198): the complete descriptor is the account's prefix, `* ` and our suffix, at
 * most 22 characters; Latin characters only; at least one letter; none of < > \ ' " *.
 * An intent's descriptor (5 to 100 characters, spec §2.1) is adapted where that keeps its
 * meaning: accents taken off, spaces collapsed, the characters Stripe forbids dropped, cut to
 * the room the prefix leaves. What cannot be adapted (another script, no letter left) is
 * refused when the intent is created, naming `descriptor`, never discovered as a failed payment.
 */

/** Stripe's shortened descriptor (the prefix) is 2 to 10 characters: unknown, we leave room for 10. */
export const LONGEST_PREFIX = 10;
const COMPLETE_MAX = 22;
const FORBIDDEN = /[<>\\'"*]/g;
const FORBIDDEN_ONE = /[<>\\'"*]/;

/** The room the suffix has: 22 characters less the prefix and its `* `. */
export const suffixRoom = (prefixLength: number) => COMPLETE_MAX - prefixLength - 2;

/** Latin letters that no accent-stripping turns into ASCII. */
const LATIN_LETTERS: Record<string, string> = {
  ß: 'ss',
  æ: 'ae',
  Æ: 'AE',
  œ: 'oe',
  Œ: 'OE',
  ø: 'o',
  Ø: 'O',
  ł: 'l',
  Ł: 'L',
  đ: 'd',
  Đ: 'D',
};

export function stripeSuffixOf(descriptor: string, prefixLength = LONGEST_PREFIX): DescriptorCheck {
  const latin = descriptor
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .replace(/[ßæÆœŒøØłŁđĐ]/g, (c) => LATIN_LETTERS[c] ?? c)
    .replace(FORBIDDEN, '')
    .replace(/\s+/g, ' ')
    .trim();
  if (/[^\x20-\x7e]/.test(latin)) {
    return {
      ok: false,
      message: 'descriptor must be written in Latin characters: Stripe prints nothing else on card statements.',
    };
  }
  const sent = latin.slice(0, suffixRoom(prefixLength)).trim();
  if (!/[A-Za-z]/.test(sent)) {
    const room = suffixRoom(prefixLength);
    return {
      ok: false,
      message: `descriptor must have a letter among its first ${room} characters: Stripe requires one on card statements.`,
    };
  }
  return { ok: true, sent };
}

/** OBOLUS_STRIPE_DESCRIPTOR_PREFIX: the account's shortened descriptor, as Stripe's rules bound it. */
export function descriptorPrefixOf(value: string | undefined): string | null {
  if (value === undefined || value === '') return null;
  const name = 'OBOLUS_STRIPE_DESCRIPTOR_PREFIX';
  if (value.length < 2 || value.length > LONGEST_PREFIX || !/^[\x20-\x7e]+$/.test(value) || FORBIDDEN_ONE.test(value)) {
    throw new Error(`${name} must be your Stripe account's shortened descriptor: 2 to 10 Latin characters`);
  }
  if (!/[A-Za-z]/.test(value)) throw new Error(`${name} must have at least one letter`);
  return value;
}
