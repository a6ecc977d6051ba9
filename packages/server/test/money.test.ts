import { describe, expect, it } from 'vitest';
import { feeFor, toMajorUnits } from '../src/money.ts';

/** The decimal text of `minor` minor units, by integer arithmetic on digits: what a merchant expects to read. */
function decimalText(minor: number): string {
  const sign = minor < 0 ? '-' : '';
  const digits = String(Math.abs(minor)).padStart(3, '0');
  const whole = digits.slice(0, -2);
  const cents = digits.slice(-2).replace(/0+$/, '');
  return `${sign}${whole}${cents ? `.${cents}` : ''}`;
}

describe('toMajorUnits', () => {
  it('serializes to the exact decimal text at the amount limits', () => {
    for (const minor of [0, 1, 7, 10, 99, 100, 101, 110, 1999, 99_999_999, 100_000_000]) {
      expect(JSON.stringify(toMajorUnits(minor))).toBe(decimalText(minor));
    }
  });

  it('serializes every amount up to 2,000,000 minor units, and a spread up to 10^15, as its decimal text', () => {
    const mismatches: number[] = [];
    for (let minor = 0; minor <= 2_000_000; minor++) {
      if (JSON.stringify(toMajorUnits(minor)) !== decimalText(minor)) mismatches.push(minor);
    }
    // Far beyond the amount limit, up to 15 significant digits: where every such decimal has a
    // double that prints as it (past that, no double can hold a sixteenth digit exactly).
    for (let minor = 2_000_001, step = 7919; minor < 1e15; minor += step, step = Math.ceil(step * 1.01)) {
      if (JSON.stringify(toMajorUnits(minor)) !== decimalText(minor)) mismatches.push(minor);
      if (JSON.stringify(toMajorUnits(-minor)) !== decimalText(-minor)) mismatches.push(-minor);
    }
    expect(mismatches).toEqual([]);
  });

  it('refuses what is not a whole number of minor units', () => {
    expect(() => toMajorUnits(19.99)).toThrow(RangeError);
    expect(() => toMajorUnits(Number.NaN)).toThrow(RangeError);
    expect(() => toMajorUnits(2 ** 53)).toThrow(RangeError);
  });
});

describe('feeFor', () => {
  it('rounds half up to the cent with integers only', () => {
    expect(feeFor(2000, { bps: 290, fixedMinor: 30 })).toBe(88);
    expect(feeFor(1, { bps: 290, fixedMinor: 30 })).toBe(30);
    expect(feeFor(50, { bps: 100, fixedMinor: 0 })).toBe(1); // 0.5 cent rounds up
    expect(feeFor(49, { bps: 100, fixedMinor: 0 })).toBe(0);
  });
});
