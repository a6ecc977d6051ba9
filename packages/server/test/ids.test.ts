import { describe, expect, it } from 'vitest';
import { newEventId } from '../src/domain/events.ts';
import { newClientSecret, newIntentId, newTransactionId, randomBase62, uuidv7 } from '../src/ids.ts';

describe('ids', () => {
  it('intent and transaction ids are 24 hex led by their millisecond, sorting by it, distinct within one', () => {
    const at = Date.UTC(2026, 10, 22, 12, 0, 0, 345);
    const id = newIntentId(at);
    expect(id).toMatch(/^[0-9a-f]{24}$/);
    expect(newTransactionId(at)).toMatch(/^[0-9a-f]{24}$/);
    expect(Number.parseInt(id.slice(0, 12), 16)).toBe(at);
    const sameMs = Array.from({ length: 10_000 }, () => newIntentId(at));
    expect(new Set(sameMs).size).toBe(10_000);
    const later = [at + 1, at + 1000, Date.UTC(2100, 0, 1)].map((ms) => newIntentId(ms));
    const sequence = [...sameMs.slice(0, 1), ...later];
    expect([...sequence].sort()).toEqual(sequence);
  });

  it('event ids are evt_ and 24 base62, sorting by their millisecond, distinct within one', () => {
    const at = Date.UTC(2026, 10, 23, 2, 45, 0, 123);
    const sameMs = Array.from({ length: 10_000 }, () => newEventId(at));
    for (const id of sameMs.slice(0, 10)) expect(id).toMatch(/^evt_[0-9A-Za-z]{24}$/);
    expect(new Set(sameMs).size).toBe(10_000);
    const later = [at + 1, at + 61, at + 3_600_000, Date.UTC(2080, 0, 1)].map((ms) => newEventId(ms));
    const sequence = [sameMs[0] as string, ...later];
    expect([...sequence].sort()).toEqual(sequence);
    expect(newEventId(0).slice(4, 11)).toBe('0000000');
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
