import { describe, expect, it } from 'vitest';
import { newClientSecret, newIntentId, randomBase62, uuidv7 } from '../src/ids.ts';

describe('ids', () => {
  it('intent ids are 24 hex led by the creation second', () => {
    const at = Date.UTC(2026, 10, 22, 12, 0, 0);
    const id = newIntentId(at);
    expect(id).toMatch(/^[0-9a-f]{24}$/);
    expect(Number.parseInt(id.slice(0, 8), 16)).toBe(at / 1000);
  });

  it('never repeats across many draws from the random pool', () => {
    const secrets = new Set(Array.from({ length: 20_000 }, () => newClientSecret(newIntentId(Date.now()))));
    expect(secrets.size).toBe(20_000);
  });

  it('base62 symbols are all used, none far more often than the others', () => {
    const counts = new Map<string, number>();
    for (const c of randomBase62(62_000)) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect(counts.size).toBe(62);
    for (const n of counts.values()) expect(n).toBeGreaterThan(800); // expected 1,000 each
  });

  it('uuidv7 carries the millisecond time, version 7 and the RFC variant', () => {
    const at = Date.UTC(2026, 10, 22);
    const id = uuidv7(at);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(Number.parseInt(id.replace(/-/g, '').slice(0, 12), 16)).toBe(at);
  });
});
