import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MAX_RESPONSE_BYTES } from '../src/processors/acquirer-transport.ts';
import { HttpAcquirer } from '../src/processors/http-acquirer.ts';
import type { AuthorizeRequest } from '../src/processors/processor.ts';
import { type AcquirerDouble, startAcquirerDouble } from './support/acquirer-double.ts';
import { freePort } from './support/server.ts';

/** The live connector against the acquirer double, without a server: what each wire answer means. */
describe('the live connector speaking to the acquirer double', () => {
  let double: AcquirerDouble;
  let connector: HttpAcquirer;
  let seq = 0;
  const TIMEOUT_MS = 800;
  const attemptId = () => `00000000${String(++seq).padStart(16, '0')}`;
  const request = (number: string, over: Partial<AuthorizeRequest> = {}): AuthorizeRequest => ({
    attemptId: attemptId(),
    amount: 4200,
    currency: 'USD',
    mode: 'live',
    card: { number, expMonth: 12, expYear: 2031, cvc: '737', name: 'Ada Lovelace' },
    descriptor: 'OBOLUS SHOP',
    ...over,
  });
  const posts = async (id: string) =>
    (await double.requests()).filter(
      (r) => r.method === 'POST' && r.path === '/v1/authorizations' && r.body.attempt_id === id,
    );

  beforeAll(async () => {
    double = await startAcquirerDouble();
    connector = double.connector({ timeoutMs: TIMEOUT_MS });
  });
  beforeEach(() => double.reset());
  afterAll(() => double.stop());

  it('approves: the card, amount and key go to the acquirer, the issuer comes back', async () => {
    const req = request('4111111111111111');
    const outcome = await connector.authorize(req);
    expect(outcome).toMatchObject({
      kind: 'approved',
      issuer: { brand: 'Visa', bank: 'Double Trust Bank', country: 'GB' },
      authorizationCode: expect.stringMatching(/^[0-9A-Z]+$/),
      threeDS: 'not_required',
    });
    const [sent] = await posts(req.attemptId);
    expect(sent?.headers.authorization).toBe(`Bearer ${double.key}`);
    expect(sent?.headers['idempotency-key']).toBe(req.attemptId);
    expect(sent?.headers['content-type']).toBe('application/json');
    expect(sent?.body).toEqual({
      attempt_id: req.attemptId,
      amount: 4200,
      currency: 'USD',
      card: { number: '4111111111111111', exp_month: 12, exp_year: 2031, cvc: '737', name: 'Ada Lovelace' },
      descriptor: 'OBOLUS SHOP',
    });
  });

  it.each([
    ['insufficient_funds', 'insufficient_funds'],
    ['incorrect_cvc', 'incorrect_cvc'],
    // What a card tester would like to learn is told as a plain decline.
    ['stolen_card', 'card_declined'],
    ['do_not_honor', 'card_declined'],
  ])('a decline %s reaches the shopper as %s', async (acquirerCode, code) => {
    await double.rule('4000000000000002', { answer: 'decline', decline_code: acquirerCode });
    const outcome = await connector.authorize(request('4000000000000002'));
    expect(outcome).toMatchObject({ kind: 'declined', code, issuer: { bank: 'Double Trust Bank' } });
    expect(JSON.stringify(outcome)).not.toContain(`declined: ${acquirerCode}`);
  });

  it('a 500 carrying the protocol error was not processed: error, nothing held by the acquirer', async () => {
    await double.rule('4111111111111111', { answer: 'approve', fault: 'error_500' });
    const req = request('4111111111111111');
    expect((await connector.authorize(req)).kind).toBe('error');
    expect((await double.attempts())[req.attemptId]).toBeUndefined();
    // A processing error is not retried by the connector: one request only.
    expect(await posts(req.attemptId)).toHaveLength(1);
  });

  it('an answer that never comes is unknown after the timeout, and a lookup says what happened', async () => {
    await double.rule('4111111111111111', { answer: 'approve', fault: 'hang' });
    const req = request('4111111111111111');
    const started = Date.now();
    expect((await connector.authorize(req)).kind).toBe('unknown');
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(TIMEOUT_MS - 20);
    expect(elapsed).toBeLessThan(TIMEOUT_MS + 1500);
    // A timeout is not retried: the shopper has waited long enough.
    expect(await posts(req.attemptId)).toHaveLength(1);
    expect(await connector.lookup(req.attemptId)).toMatchObject({ kind: 'approved' });
  });

  it('a dropped connection after processing: retried once with the same attempt id, then unknown', async () => {
    await double.rule('4111111111111111', { answer: 'approve', fault: 'drop_after' });
    const req = request('4111111111111111');
    expect((await connector.authorize(req)).kind).toBe('unknown');
    const sent = await posts(req.attemptId);
    expect(sent).toHaveLength(2);
    expect(sent.map((r) => r.headers['idempotency-key'])).toEqual([req.attemptId, req.attemptId]);
    expect(await connector.lookup(req.attemptId)).toMatchObject({ kind: 'approved' });
  });

  it.each(['drop_after', 'bare_502_after'] as const)(
    'one lost answer (%s) is recovered by the retry: approved once, charged once',
    async (fault) => {
      await double.rule('4111111111111111', { answer: 'approve', fault, times: 1 });
      const req = request('4111111111111111');
      expect((await connector.authorize(req)).kind).toBe('approved');
      expect(await posts(req.attemptId)).toHaveLength(2);
      const attempts = await double.attempts();
      expect(Object.keys(attempts).filter((id) => id === req.attemptId)).toHaveLength(1);
    },
  );

  it('a 502 without the protocol body every time is unknown: it may have been processed', async () => {
    await double.rule('4111111111111111', { answer: 'approve', fault: 'bare_502_after' });
    expect((await connector.authorize(request('4111111111111111'))).kind).toBe('unknown');
  });

  it('a 200 that is not a protocol answer is unknown, not a failure', async () => {
    await double.rule('4111111111111111', { answer: 'approve', fault: 'unreadable_after' });
    const req = request('4111111111111111');
    expect((await connector.authorize(req)).kind).toBe('unknown');
    expect(await connector.lookup(req.attemptId)).toMatchObject({ kind: 'approved' });
  });

  it(`an answer of up to ${MAX_RESPONSE_BYTES} bytes is read; one byte more is not an answer (unknown)`, async () => {
    await double.rule('4111111111111111', { answer: 'approve', pad_to: MAX_RESPONSE_BYTES });
    expect((await connector.authorize(request('4111111111111111'))).kind).toBe('approved');
    await double.rule('4111111111111111', { answer: 'approve', pad_to: MAX_RESPONSE_BYTES + 1 });
    const req = request('4111111111111111');
    expect((await connector.authorize(req)).kind).toBe('unknown');
    expect((await double.attempts())[req.attemptId]?.body.result).toBe('approved');
  });

  it('409 (the same attempt in progress) is unknown', async () => {
    await double.rule('4111111111111111', { answer: 'approve', fault: 'conflict_409' });
    expect((await connector.authorize(request('4111111111111111'))).kind).toBe('unknown');
  });

  it('never processed: a lookup says not found (error), and the attempt id is dead at the acquirer', async () => {
    await double.rule('4111111111111111', { answer: 'approve', fault: 'hang_unprocessed', times: 1 });
    const req = request('4111111111111111');
    expect((await connector.authorize(req)).kind).toBe('unknown');
    expect(await connector.lookup(req.attemptId)).toMatchObject({ kind: 'error' });
    // The protocol's promise behind that answer: a late copy of the request is refused.
    expect((await connector.authorize(req)).kind).toBe('error');
  });

  it('a lookup the acquirer cannot answer, or an attempt it has not decided, is null', async () => {
    await double.rule('4111111111111111', { answer: 'pending' });
    const req = request('4111111111111111');
    expect((await connector.authorize(req)).kind).toBe('unknown');
    expect(await connector.lookup(req.attemptId)).toBeNull();
    await double.decide(req.attemptId, 'decline', 'insufficient_funds');
    await double.failLookups(true);
    expect(await connector.lookup(req.attemptId)).toBeNull();
    await double.failLookups(false);
    expect(await connector.lookup(req.attemptId)).toMatchObject({ kind: 'declined', code: 'insufficient_funds' });
  });

  it('a 3-D Secure challenge is ended as not passed: declined, and the acquirer is told', async () => {
    await double.rule('4000000000003220', { answer: 'challenge' });
    const req = request('4000000000003220');
    const outcome = await connector.authorize(req);
    expect(outcome).toMatchObject({ kind: 'declined', code: 'authentication_failed', threeDS: 'challenge_failed' });
    expect(outcome.kind === 'declined' && outcome.message).toContain('3-D Secure');
    const challenge = (await double.requests()).find((r) => r.path === `/v1/authorizations/${req.attemptId}/challenge`);
    expect(challenge?.body).toEqual({ passed: false });
    expect((await double.attempts())[req.attemptId]?.body.result).toBe('declined');
  });

  it('a wrong key is refused by the acquirer before processing: error', async () => {
    const wrong = double.connector({ key: 'not-the-key', timeoutMs: TIMEOUT_MS });
    const req = request('4111111111111111');
    expect((await wrong.authorize(req)).kind).toBe('error');
    expect((await double.attempts())[req.attemptId]).toBeUndefined();
  });

  it('a refused connection is a clean error, quickly', async () => {
    const port = await freePort();
    const closed = new HttpAcquirer({ url: new URL(`http://127.0.0.1:${port}`), key: 'k', timeoutMs: 5000 });
    const started = Date.now();
    expect(await closed.authorize(request('4111111111111111'))).toMatchObject({ kind: 'error' });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(await closed.lookup('0'.repeat(24))).toBeNull();
  });

  it('never sends a sandbox payment', async () => {
    const outcome = await connector.authorize(request('4242424242424242', { mode: 'sandbox' }));
    expect(outcome.kind).toBe('error');
    expect(await double.requests()).toEqual([]);
  });
});

describe('the live connector over HTTPS', () => {
  let double: AcquirerDouble;
  beforeAll(async () => {
    double = await startAcquirerDouble({ tls: true });
  });
  afterAll(() => double.stop());

  it('refuses an acquirer whose certificate it does not trust: error, nothing sent', async () => {
    const connector = double.connector({ timeoutMs: 2000 });
    const outcome = await connector.authorize({
      attemptId: 'aaaaaaaaaaaaaaaaaaaaaaaa',
      amount: 100,
      currency: 'USD',
      mode: 'live',
      card: { number: '4111111111111111', expMonth: 1, expYear: 2031, cvc: '123', name: 'A' },
      descriptor: null,
    });
    expect(outcome.kind).toBe('error');
    expect(await double.requests()).toEqual([]);
  });
});
