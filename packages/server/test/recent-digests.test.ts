import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { RecentDigests } from '../src/http/plugins/secret-key-auth.ts';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('the digests of recent bearer tokens', () => {
  it('answers the SHA-256 of each token, from memory the second time', () => {
    const digests = new RecentDigests();
    const token = 'sk_test_4eC39HqLyjWDarjtT1zdp7dc';
    expect(digests.of(token)).toBe(sha256(token));
    expect(digests.of(token)).toBe(sha256(token));
    expect(digests.of(`${token}x`)).toBe(sha256(`${token}x`));
  });

  it('keeps a token at most two minutes after its last use', () => {
    let now = 0;
    const digests = new RecentDigests(() => now);
    digests.of('sk_used_once');
    digests.of('sk_used_often');
    now = 60_000;
    digests.of('sk_used_often');
    expect(digests.holds('sk_used_once')).toBe(true);
    now = 119_999;
    digests.of('sk_used_often');
    expect(digests.holds('sk_used_once')).toBe(true);
    now = 120_000;
    digests.of('sk_used_often');
    expect(digests.holds('sk_used_once')).toBe(false);
    expect(digests.holds('sk_used_often')).toBe(true);
  });

  it('holds at most 20,000 tokens under a flood of made-up ones', () => {
    const digests = new RecentDigests(() => 0);
    digests.of('sk_real');
    for (let i = 0; i < 20_000; i++) digests.of(`sk_flood_${i}`);
    expect(digests.holds('sk_real')).toBe(false);
    expect(digests.holds('sk_flood_19999')).toBe(true);
    expect(digests.of('sk_flood_19999')).toBe(sha256('sk_flood_19999'));
  });
});
