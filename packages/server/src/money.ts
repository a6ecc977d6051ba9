/**
 * Money is an integer count of minor units (cents) everywhere inside Obolus.
 * This is the only place that turns minor units into major units, for the fields
 * the spec shows in major units (amountpaid, usdpaid, usdfee).
 */
export function toMajorUnits(minor: number): number {
  if (!Number.isSafeInteger(minor)) throw new RangeError(`not an integer amount of minor units: ${minor}`);
  // IEEE division is correctly rounded: `minor / 100` is the double nearest to the exact quotient,
  // the very double the decimal text (e.g. "19.99") parses to, so it prints as that text.
  // Number(x.toFixed(2)) gave the same double for a read's 3 µs (test/money.test.ts).
  return minor / 100;
}

/**
 * Fee in minor units for an amount: percentage in basis points plus a fixed part,
 * rounded half-up to the cent with integer arithmetic only.
 */
export function feeFor(amountMinor: number, pricing: { bps: number; fixedMinor: number }): number {
  const variableTimes10000 = amountMinor * pricing.bps;
  const variable = Math.floor((variableTimes10000 + 5000) / 10000);
  return variable + pricing.fixedMinor;
}

/** Major-unit text for people, e.g. 2000 USD -> "$20.00". */
export function formatMoney(minor: number, currency: string): string {
  return new Intl.NumberFormat('en-US', { style: 'currency', currency }).format(toMajorUnits(minor));
}
