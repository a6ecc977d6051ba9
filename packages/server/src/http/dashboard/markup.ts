import { escapeHtml } from '../html.ts';

/** HTML that is already safe: only `html` below and trusted constants make one. */
export class Markup {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
  toString(): string {
    return this.text;
  }
}

type Value = Markup | string | number | boolean | null | undefined | readonly Value[];

function render(value: Value): string {
  if (value instanceof Markup) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

/**
 * The dashboard's only way to build HTML: every interpolated value is escaped unless it is
 * itself Markup, so merchant text (product names, metadata, references) is always text.
 */
export function html(strings: TemplateStringsArray, ...values: Value[]): Markup {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    out += render(value) + (strings[i + 1] ?? '');
  });
  return new Markup(out);
}
