import type { Appearance as LoaderAppearance } from '@obolus/js';

/**
 * The host page's look for the widget, like Stripe's Appearance API: a few variables
 * (colours, radius, font), passed by the loader as `appearance=<JSON>` in the widget's
 * address. Every value is checked against a strict pattern before it becomes CSS, so
 * nothing but a colour, a length or a font list can reach the page's style.
 */

/** The loader's `appearance.variables`: one declaration, in @obolus/js (a type-only import). */
export type Appearance = NonNullable<LoaderAppearance['variables']>;

const HEX = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;
const RULES: Record<keyof Appearance, { pattern: RegExp; says: string }> = {
  colorPrimary: { pattern: HEX, says: 'a hex colour such as #3346c9' },
  colorBackground: {
    pattern: /^(?:#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})|transparent)$/,
    says: 'a hex colour or transparent',
  },
  colorText: { pattern: HEX, says: 'a hex colour such as #1b1f2a' },
  colorDanger: { pattern: HEX, says: 'a hex colour such as #b3261e' },
  borderRadius: { pattern: /^(?:[0-9]|1[0-9]|2[0-4])px$/, says: '0px to 24px' },
  fontFamily: { pattern: /^[A-Za-z0-9 ,'"-]{1,100}$/, says: 'a font list such as "Inter, sans-serif"' },
};
export const APPEARANCE_VARIABLES = Object.keys(RULES) as Array<keyof Appearance>;

/** The variables, or the first thing wrong with them in words a developer can act on. */
export function parseAppearance(text: string): Appearance | { problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { problem: 'appearance must be a JSON object of variables.' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { problem: 'appearance must be a JSON object of variables.' };
  }
  const appearance: Appearance = {};
  for (const [name, given] of Object.entries(value)) {
    const rule = RULES[name as keyof Appearance];
    if (!rule) return { problem: `appearance.${name} is not a variable; use ${APPEARANCE_VARIABLES.join(', ')}.` };
    if (typeof given !== 'string' || !rule.pattern.test(given)) {
      return { problem: `appearance.${name} must be ${rule.says}.` };
    }
    appearance[name as keyof Appearance] = given;
  }
  return appearance;
}

/** Black or white, whichever reads better on the primary colour (WCAG relative luminance). */
function textOn(hex: string): string {
  const full = hex.length === 4 ? hex.replace(/^#(.)(.)(.)$/, '#$1$1$2$2$3$3') : hex;
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = Number.parseInt(full.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.18 ? '#0b0d14' : '#ffffff';
}

/** The CSS that applies them over both themes; empty when there are none. */
export function appearanceCss(appearance: Appearance | null): string {
  if (!appearance) return '';
  const vars: string[] = [];
  if (appearance.colorPrimary)
    vars.push(`--accent:${appearance.colorPrimary}`, `--on-accent:${textOn(appearance.colorPrimary)}`);
  if (appearance.colorBackground) vars.push(`--bg:${appearance.colorBackground}`);
  if (appearance.colorText) vars.push(`--fg:${appearance.colorText}`);
  if (appearance.colorDanger) vars.push(`--bad:${appearance.colorDanger}`);
  if (appearance.borderRadius) vars.push(`--radius:${appearance.borderRadius}`);
  if (appearance.fontFamily) vars.push(`--font:${appearance.fontFamily}`);
  return vars.length ? `:root,[data-theme]{${vars.join(';')}}` : '';
}
