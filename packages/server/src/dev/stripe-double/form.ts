/**
 * Stripe's request encoding: application/x-www-form-urlencoded with bracketed keys
 * (`card[number]=…`, `expand[0]=latest_charge`), as stripe-node writes it. Decoded into
 * nested objects; objects whose keys are all indexes become arrays.
 */
export type FormValue = string | FormValue[] | { [key: string]: FormValue };

export function decodeForm(text: string): Record<string, FormValue> {
  const root: Record<string, FormValue> = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const path = key.split(/\[|\]\[|\]/).filter((part, i) => i === 0 || part !== '');
    let node = root as Record<string, FormValue>;
    path.forEach((part, i) => {
      if (i === path.length - 1) node[part] = value;
      else {
        const next = node[part];
        node[part] = typeof next === 'object' && !Array.isArray(next) ? next : {};
        node = node[part] as Record<string, FormValue>;
      }
    });
  }
  return arrays(root) as Record<string, FormValue>;
}

function arrays(value: FormValue): FormValue {
  if (typeof value !== 'object' || Array.isArray(value)) return value;
  const keys = Object.keys(value);
  const entries = keys.map((k) => [k, arrays(value[k] as FormValue)] as const);
  if (keys.length > 0 && keys.every((k) => /^\d+$/.test(k))) {
    return entries.sort((a, b) => Number(a[0]) - Number(b[0])).map(([, v]) => v);
  }
  return Object.fromEntries(entries);
}

/** A string at `path`, or undefined. */
export function field(form: Record<string, FormValue>, ...path: string[]): string | undefined {
  let node: FormValue | undefined = form;
  for (const part of path) {
    node = typeof node === 'object' && !Array.isArray(node) ? node[part] : undefined;
  }
  return typeof node === 'string' ? node : undefined;
}

export function stringList(value: FormValue | undefined): string[] {
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}
