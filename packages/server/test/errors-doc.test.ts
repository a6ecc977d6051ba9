import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../src/domain/errors.ts';
import { ERROR_STATUS } from '../src/http/error-statuses.ts';
import { ERRORS_DOC, errorsDoc } from '../src/http/openapi/errors-doc.ts';

describe('docs/errors.md', () => {
  const text = readFileSync(ERRORS_DOC, 'utf8');

  it('is what the error catalogue generates (else run `npm run errors-doc`)', () => {
    expect(text).toBe(errorsDoc());
  });

  it('has one row per code with its HTTP status and type, a meaning and what to do', () => {
    const rows = text.split('\n').filter((line) => /^\| `[a-z_]+` \|/.test(line));
    expect(rows.map((row) => row.split('`')[1])).toEqual([...ERROR_CODES]);
    for (const row of rows) {
      const [, code, status, type, meaning, action] = row.split(/\s*\|\s*/);
      const entry = ERROR_STATUS[code!.replace(/`/g, '') as (typeof ERROR_CODES)[number]];
      expect(Number(status)).toBe(entry.status);
      expect(type).toBe(entry.type);
      expect(meaning!.length).toBeGreaterThan(10);
      expect(action!.length).toBeGreaterThan(5);
    }
  });
});
