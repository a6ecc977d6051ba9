import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  isSandbox3dsCode,
  SANDBOX_DISPUTE_AFTER_MS,
  SANDBOX_TEST_CARDS,
  SandboxProcessor,
  type SandboxTestCard,
} from '../src/connectors/sandbox/sandbox.ts';
import { DECLINE_MESSAGES } from '../src/domain/payments/declines.ts';
import type { AuthorizeOutcome, AuthorizeRequest } from '../src/domain/payments/ports.ts';

const processor = new SandboxProcessor();
/** The shopper's answers on the simulated ACS page. */
const PASS = { code: '1234' };
const FAIL = { code: '9999' };
let attempts = 0;

function request(number: string, overrides: Partial<AuthorizeRequest> = {}): AuthorizeRequest {
  attempts += 1;
  return {
    attemptId: attempts.toString(16).padStart(24, '0'),
    intentId: 'f'.repeat(24),
    returnUrl: 'http://127.0.0.1/return',
    amount: 1999,
    currency: 'USD',
    mode: 'sandbox',
    card: { number, expMonth: 12, expYear: 2030, cvc: '123', name: 'Ada Lovelace' },
    descriptor: null,
    ...overrides,
  };
}

const cardById = (id: string): SandboxTestCard => {
  const card = SANDBOX_TEST_CARDS.find((c) => c.id === id);
  if (!card) throw new Error(`no test card ${id}`);
  return card;
};

async function challengeRefOf(number: string): Promise<string> {
  const outcome = await processor.authorize(request(number));
  if (outcome.kind !== 'challenge') throw new Error(`expected a challenge, got ${outcome.kind}`);
  return outcome.challengeRef;
}

const issuerOf = (outcome: AuthorizeOutcome) => outcome.issuer;

describe('SANDBOX_TEST_CARDS', () => {
  it('lists every card of the design once', () => {
    expect(SANDBOX_TEST_CARDS.map((c) => c.number)).toEqual([
      '4242424242424242',
      '5555555555554444',
      '378282246310005',
      '4000000000000002',
      '4000000000009995',
      '4000000000000069',
      '4000000000000127',
      '4000000000000119',
      '4000000000003220',
      '4000008400001629',
      '4000000000003055',
      '4000000000000259',
    ]);
    expect(new Set(SANDBOX_TEST_CARDS.map((c) => c.id)).size).toBe(SANDBOX_TEST_CARDS.length);
  });

  it('is the table docs/test-cards.md shows', () => {
    const doc = readFileSync(new URL('../../../docs/test-cards.md', import.meta.url), 'utf8');
    const rows = [...doc.matchAll(/^\| `(\d+)` \| ([^|]+) \|/gm)].map(([, number, brand]) => [number, brand?.trim()]);
    expect(rows).toEqual(SANDBOX_TEST_CARDS.map((c) => [c.number, c.brand]));
  });

  it.each(SANDBOX_TEST_CARDS)('$number answers as its table row says ($id)', async (card) => {
    const outcome = await processor.authorize(request(card.number));
    expect(issuerOf(outcome)).toEqual({ brand: card.brand, bank: 'Obolus Test Bank', country: 'US' });
    const kinds = {
      approve: 'approved',
      decline: 'declined',
      error: 'error',
      challenge: 'challenge',
    } as const;
    expect(outcome.kind).toBe(kinds[card.scenario.kind]);
  });
});

describe('SandboxProcessor.authorize', () => {
  it.each([
    ['4242424242424242', 'Visa'],
    ['5555555555554444', 'Mastercard'],
    ['378282246310005', 'American Express'],
  ])('approves %s (%s) with an authorization code and no 3-D Secure', async (number, brand) => {
    const outcome = await processor.authorize(request(number));
    expect(outcome).toEqual({
      kind: 'approved',
      issuer: { brand, bank: 'Obolus Test Bank', country: 'US' },
      authorizationCode: expect.stringMatching(/^[0-9A-Z]{6}$/),
      threeDS: 'not_required',
    });
  });

  it.each([
    ['4000000000000002', 'card_declined'],
    ['4000000000009995', 'insufficient_funds'],
    ['4000000000000069', 'expired_card'],
    ['4000000000000127', 'incorrect_cvc'],
  ])('declines %s with %s', async (number, code) => {
    const outcome = await processor.authorize(request(number));
    expect(outcome).toMatchObject({ kind: 'declined', code, threeDS: 'not_required' });
    expect(outcome.kind === 'declined' && outcome.message).toBeTruthy();
  });

  it('answers 4000000000000119 with a processing error', async () => {
    const outcome = await processor.authorize(request('4000000000000119'));
    expect(outcome).toMatchObject({ kind: 'error', message: expect.stringContaining('processing error') });
  });

  it('approves 4000000000003055 through frictionless 3-D Secure', async () => {
    const outcome = await processor.authorize(request('4000000000003055'));
    expect(outcome).toMatchObject({ kind: 'approved', threeDS: 'frictionless' });
  });

  it('approves 4000000000000259 and schedules a chargeback', async () => {
    const outcome = await processor.authorize(request('4000000000000259'));
    expect(outcome).toMatchObject({ kind: 'approved', disputeAfterMs: SANDBOX_DISPUTE_AFTER_MS });
  });

  it('refuses any other number with card_not_test, naming a test card the shopper can type', async () => {
    const outcome = await processor.authorize(request('4111111111111111'));
    expect(outcome).toMatchObject({ kind: 'declined', code: 'card_not_test' });
    expect(outcome.kind === 'declined' && outcome.message).toBe(
      'This is a test payment: use a test card, such as 4242 4242 4242 4242.',
    );
  });

  it('tells the shopper nothing that names a file of the repository', () => {
    for (const message of Object.values(DECLINE_MESSAGES)) expect(message).not.toMatch(/\.md\b|docs\/|\.ts\b/);
  });

  it('never simulates a live payment', async () => {
    const outcome = await processor.authorize(request('4242424242424242', { mode: 'live' }));
    expect(outcome.kind).toBe('error');
  });

  it('answers the same to a replayed attempt, and differently to another attempt', async () => {
    const first = request('4242424242424242');
    const replay = await processor.authorize(first);
    expect(await processor.authorize(first)).toEqual(replay);
    const codes = new Set<string>();
    for (let i = 0; i < 20; i += 1) {
      const outcome = await processor.authorize(request('4242424242424242'));
      if (outcome.kind === 'approved') codes.add(outcome.authorizationCode ?? '');
    }
    expect(codes.size).toBeGreaterThan(1);
  });
});

describe('SandboxProcessor 3-D Secure challenge', () => {
  it('challenges 4000000000003220 with a reference that names the scenario', async () => {
    const ref = await challengeRefOf('4000000000003220');
    expect(ref).toMatch(/^3ds_[0-9a-f]{24}_challenge$/);
  });

  it('approves 4000000000003220 when the challenge is passed', async () => {
    const outcome = await processor.completeChallenge(await challengeRefOf('4000000000003220'), PASS);
    expect(outcome).toMatchObject({
      kind: 'approved',
      threeDS: 'challenge_passed',
      authorizationCode: expect.stringMatching(/^[0-9A-Z]{6}$/),
      issuer: { brand: 'Visa' },
    });
  });

  it('declines 4000000000003220 with authentication_failed when the challenge fails', async () => {
    const outcome = await processor.completeChallenge(await challengeRefOf('4000000000003220'), FAIL);
    expect(outcome).toMatchObject({
      kind: 'declined',
      code: 'authentication_failed',
      threeDS: 'challenge_failed',
    });
  });

  it('declines 4000008400001629 with card_declined even when the challenge is passed', async () => {
    const outcome = await processor.completeChallenge(await challengeRefOf('4000008400001629'), PASS);
    expect(outcome).toMatchObject({ kind: 'declined', code: 'card_declined', threeDS: 'challenge_passed' });
  });

  it('declines 4000008400001629 with authentication_failed when the challenge fails', async () => {
    const outcome = await processor.completeChallenge(await challengeRefOf('4000008400001629'), FAIL);
    expect(outcome).toMatchObject({
      kind: 'declined',
      code: 'authentication_failed',
      threeDS: 'challenge_failed',
    });
  });

  it('finishes a challenge in another processor instance (stateless)', async () => {
    const ref = await challengeRefOf('4000000000003220');
    expect((await new SandboxProcessor().completeChallenge(ref, PASS)).kind).toBe('approved');
  });

  it.each([
    ['empty', ''],
    ['garbage', 'not-a-ref'],
    ['an unknown scenario', '3ds_000000000000000000000000_nope'],
    ['a card that never challenges', `3ds_000000000000000000000000_${cardById('visa_success').id}`],
    ['a short token', '3ds_abc_challenge'],
    ['trailing text', '3ds_000000000000000000000000_challenge_x'],
  ])('refuses a reference that is %s with an error outcome', async (_, ref) => {
    for (const answer of [PASS, FAIL, { cancel: true }]) {
      expect(await processor.completeChallenge(ref, answer)).toMatchObject({ kind: 'error', issuer: null });
    }
  });

  it('accepts only the code 1234', () => {
    expect(isSandbox3dsCode('1234')).toBe(true);
    expect(isSandbox3dsCode(' 1234 ')).toBe(true);
    expect(isSandbox3dsCode('1235')).toBe(false);
    expect(isSandbox3dsCode('')).toBe(false);
  });
});
