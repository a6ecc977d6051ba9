import { toMajorUnits } from '../../src/money.ts';

const SYMBOLS: Record<string, string> = { USD: '$' };

/**
 * "$1,234.56" for 123456 USD, as the server's formatMoney writes it, without Intl: building
 * an Intl.NumberFormat in a fresh frame costs tens of milliseconds of the time to an
 * interactive form, and v1 has one currency.
 */
export function formatAmount(minor: number, currency: string): string {
  const [units, cents] = toMajorUnits(minor).toFixed(2).split('.') as [string, string];
  const grouped = units.replace(/\B(?=(\d{3})+$)/g, ',');
  const symbol = SYMBOLS[currency];
  return symbol ? `${symbol}${grouped}.${cents}` : `${currency} ${grouped}.${cents}`;
}
