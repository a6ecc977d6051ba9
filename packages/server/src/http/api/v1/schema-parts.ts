import { Type } from 'typebox';

/**
 * The small schema pieces every route file of the merchant API shares, defined once: the
 * largest amount, the modes, the one currency, nullable fields and Unix-second times.
 */

/** The largest amount in minor units anywhere in the API: $999,999.99. */
export const MAX_AMOUNT = 99_999_999;
export const Amount = (options: { description?: string } = {}) =>
  Type.Integer({ minimum: 1, maximum: MAX_AMOUNT, ...options });

export const ModeEnum = Type.Enum(['live', 'sandbox']);
/** The only currency of v1; a response says it as the literal it is. */
export const CurrencyOut = Type.Literal('USD');

export const nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);

/** Milliseconds as the API's Unix seconds. */
export const unixSeconds = (ms: number) => Math.floor(ms / 1000);
export const unixSecondsOrNull = (ms: number | null) => (ms === null ? null : unixSeconds(ms));
