import { CLIENT_KEY } from '@obolus/js/protocol';
import { isOrigin, originOf } from '../../domain/allowed-origins.ts';
import { type Appearance, parseAppearance } from './appearance.ts';
import type { PageProblem } from './error-page.ts';

/** What the widget's address says: `/embed?pk=…[&mode=…][&theme=…][&origin=…][&summary=off][&appearance=…]`. */
export interface EmbedQuery {
  pk: string;
  mode: 'live' | 'sandbox' | null;
  theme: 'light' | 'dark' | null;
  origin: string | null;
  /** false: the host page shows merchant, amount and test badge itself (the hosted page does). */
  summary: boolean;
  appearance: Appearance | null;
}

export { CLIENT_KEY };

const TITLE = 'This checkout cannot be shown';

const problem = (param: string, message: string): { problem: PageProblem } => ({
  problem: { status: 400, title: TITLE, message, param },
});

function one(query: Record<string, unknown>, name: string): string | null | { twice: true } {
  const value = query[name];
  if (value === undefined) return null;
  return typeof value === 'string' ? value : { twice: true };
}

/** Reads the query, naming the first parameter that is missing, repeated or malformed. */
export function readEmbedQuery(query: Record<string, unknown>): EmbedQuery | { problem: PageProblem } {
  const names = ['pk', 'mode', 'theme', 'origin', 'summary', 'appearance'] as const;
  const values = {} as Record<(typeof names)[number], string | null>;
  for (const name of names) {
    const value = one(query, name);
    if (value !== null && typeof value === 'object')
      return problem(name, `The ${name} parameter is given more than once.`);
    values[name] = value;
  }
  const { pk, mode, theme, origin, summary } = values;
  if (!pk) return problem('pk', 'The address lacks the merchant’s client key: add ?pk=pk_… to it.');
  if (!CLIENT_KEY.test(pk))
    return problem('pk', 'The client key (pk) is malformed: it looks like pk_ and letters or digits.');
  if (mode !== null && mode !== 'live' && mode !== 'sandbox') return problem('mode', 'mode must be live or sandbox.');
  if (theme !== null && theme !== 'light' && theme !== 'dark') return problem('theme', 'theme must be light or dark.');
  if (origin !== null && !isOrigin(origin))
    return problem('origin', 'origin must be an origin like https://shop.example.');
  if (summary !== null && summary !== 'off') return problem('summary', 'summary can only be off.');
  const appearance = values.appearance === null ? null : parseAppearance(values.appearance);
  if (appearance && 'problem' in appearance) return problem('appearance', appearance.problem);
  return {
    pk,
    mode,
    theme,
    origin: origin === null ? null : originOf(origin),
    summary: summary === null,
    appearance,
  } as EmbedQuery;
}
