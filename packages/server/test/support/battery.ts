import { readFileSync } from 'node:fs';
/**
 * The reliability battery (issue 15): each test runs a small count in `npm test` and a larger
 * one in `npm run test:long` (OBOLUS_LONG=1), and prints the figure it measured in one line
 * starting with "figure:" so that docs/security.md can quote the latest run.
 */
export const LONG = process.env.OBOLUS_LONG === '1';

/** The default count, or the long one under `npm run test:long`. */
export const count = (short: number, long: number) => (LONG ? long : short);

export function reportFigure(name: string, figure: string): void {
  console.log(`figure: ${name}: ${figure}${LONG ? ' (long run)' : ''}`);
}

/** Vitest's time limit for a test whose count grows under `npm run test:long`. */
export const BATTERY_TIMEOUT_MS = LONG ? 30 * 60_000 : 60_000;

const DOCUMENT = JSON.parse(readFileSync(new URL('../../../../docs/openapi.json', import.meta.url), 'utf8'));
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** Every operation of the merchant API, from its OpenAPI document: the battery's probes follow it. */
export const MERCHANT_OPERATIONS: { method: string; path: string }[] = Object.entries(
  DOCUMENT.paths as Record<string, object>,
).flatMap(([path, ops]) =>
  Object.keys(ops)
    .filter((m) => METHODS.includes(m))
    .map((m) => ({ method: m.toUpperCase(), path })),
);
