import { formatMoney } from '../../money.ts';

export const money = (minor: number, currency = 'USD') => formatMoney(minor, currency);

/** UTC, to the minute: the dashboard shows the same time to everyone. */
export const when = (ms: number) => `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;

export const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
