import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../src/clock.ts';
import { SESSION_ABSOLUTE_MS, SESSION_IDLE_MS } from '../src/domain/dashboard/sessions.ts';
import {
  SIGN_IN_EMAIL_WINDOW_MS,
  SIGN_IN_MAX_FAILURES,
  SIGN_IN_MAX_FAILURES_PER_EMAIL,
  SIGN_IN_MAX_FAILURES_PER_NETWORK,
  SIGN_IN_WINDOW_MS,
} from '../src/domain/dashboard/sign-in-limits.ts';
import { runCli } from './support/cli.ts';
import { cheapMerchant, merchant, PASSWORD, signInHttp } from './support/dashboard.ts';
import { ENGINES } from './support/engines.ts';
import { useSecondProcess } from './support/second-process.ts';
import { useTestServer } from './support/use-test-server.ts';

const MINUTE = 60_000;

describe.each(ENGINES)('dashboard session timeouts (%s)', (engine) => {
  const clock = new ManualClock(Date.UTC(2026, 10, 4, 9));
  const { t } = useTestServer(engine, { clock });

  it('ends a session idle for 2 hours, and any session 12 hours after sign-in', async () => {
    const shop = await merchant(t);
    const idle = await signInHttp(t, shop.email);
    clock.advance(SESSION_IDLE_MS - MINUTE);
    expect((await idle.get('/dashboard/payments')).status).toBe(200);
    clock.advance(SESSION_IDLE_MS - MINUTE);
    expect((await idle.get('/dashboard/payments')).status).toBe(200);
    clock.advance(SESSION_IDLE_MS);
    expect((await idle.get('/dashboard/payments')).status).toBe(303);

    const busy = await signInHttp(t, shop.email);
    // Busy all along: a request every hour, for 11 h 59 min, then the 12 h are up.
    for (let hour = 1; hour < SESSION_ABSOLUTE_MS / (60 * MINUTE); hour++) {
      clock.advance(60 * MINUTE);
      expect((await busy.get('/dashboard/payments')).status).toBe(200);
    }
    clock.advance(59 * MINUTE);
    expect((await busy.get('/dashboard/payments')).status).toBe(200);
    clock.advance(MINUTE);
    expect((await busy.get('/dashboard/payments')).status).toBe(303);
  });
});

describe.each(ENGINES)('sign-in rate limit across processes (%s)', (engine) => {
  const { t } = useTestServer(engine);
  const other = useSecondProcess(t);

  it('answers 429 after 10 failures for an email from one client network in 15 minutes, over both processes', async () => {
    const shop = await cheapMerchant(t);
    const started = Date.now();
    for (let i = 0; i < SIGN_IN_MAX_FAILURES; i++) {
      const url = i % 2 === 0 ? t.url : other.url;
      const res = await signInFrom('127.0.1.1', url, shop.email, `wrong password ${i}`);
      expect(res.status).toBe(401);
    }
    // Even the right password: the limit answers before the password is checked.
    for (const url of [t.url, other.url]) {
      const res = await signInFrom('127.0.1.1', url, shop.email, PASSWORD);
      if (!oneWindow(started, SIGN_IN_WINDOW_MS)) return; // a fixed window ended mid-test: counts restarted
      expect(res.status).toBe(429);
      expect(Number(res.retryAfter)).toBeGreaterThan(0);
      expect(Number(res.retryAfter)).toBeLessThanOrEqual(900);
    }
    // Another network is not locked out by a stranger who knows the email (item 10).
    expect((await signInFrom('127.0.1.2', other.url, shop.email, PASSWORD)).status).toBe(303);
  });

  it(`answers 429 after ${SIGN_IN_MAX_FAILURES_PER_NETWORK} failures from one client network, whatever the emails`, async () => {
    // Emails nobody has (each checked against the decoy hash) and merchants' emails, one failure each.
    const shops = [];
    for (let i = 2; i < SIGN_IN_MAX_FAILURES_PER_NETWORK; i++) shops.push(await cheapMerchant(t));
    const emails = ['nobody0@x.example', 'nobody1@x.example', ...shops.map((s) => s.email)];
    const started = Date.now();
    const answers = await inBatches(SIGN_IN_MAX_FAILURES_PER_NETWORK, (i) =>
      signInFrom('127.0.2.1', i % 2 === 0 ? t.url : other.url, emails[i] as string, 'wrong password!'),
    );
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 401));
    const shop = await cheapMerchant(t);
    const last = await signInFrom('127.0.2.1', other.url, shop.email, PASSWORD);
    if (oneWindow(started, SIGN_IN_WINDOW_MS)) expect(last.status).toBe(429);
    expect((await signInFrom('127.0.2.2', other.url, shop.email, PASSWORD)).status).toBe(303);
  }, 60_000);

  it(`answers 429 for an email after ${SIGN_IN_MAX_FAILURES_PER_EMAIL} failures an hour from any networks`, async () => {
    const shop = await cheapMerchant(t);
    const started = Date.now();
    const answers = await inBatches(SIGN_IN_MAX_FAILURES_PER_EMAIL, (i) =>
      signInFrom(`127.0.3.${i + 1}`, i % 2 === 0 ? t.url : other.url, shop.email, 'wrong password!'),
    );
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 401));
    const last = await signInFrom('127.0.3.200', t.url, shop.email, PASSWORD);
    if (oneWindow(started, SIGN_IN_EMAIL_WINDOW_MS)) expect(last.status).toBe(429);
  }, 60_000);

  // The 200-guesses race keeps the real hash (merchant): its hashing pool can fill.
  it('200 guesses sent at once over both processes: exactly 10 passwords checked, the right one among them or refused', async () => {
    const shop = await merchant(t);
    const started = Date.now();
    const guesses = Array.from({ length: 200 }, (_, i) => (i === 199 ? PASSWORD : `wrong password ${i}`));
    const answers = await Promise.all(
      guesses.map((password, i) => signInFrom('127.0.4.1', i % 2 === 0 ? t.url : other.url, shop.email, password)),
    );
    const statuses = answers.map((a) => a.status);
    const checked = statuses.filter((s) => s === 401 || s === 303).length;
    // A password-hashing pool full (503) checked nothing and gave its slot back to a later guess.
    const busy = statuses.filter((s) => s === 503).length;
    if (!oneWindow(started, SIGN_IN_WINDOW_MS)) {
      expect(checked).toBeLessThanOrEqual(2 * SIGN_IN_MAX_FAILURES);
      return;
    }
    expect(checked).toBeLessThanOrEqual(SIGN_IN_MAX_FAILURES);
    expect(checked + busy).toBeGreaterThanOrEqual(SIGN_IN_MAX_FAILURES);
    expect(statuses.filter((s) => s === 429)).toHaveLength(200 - checked - busy);
    // The right password was refused unless it took one of the 10 slots; either way, afterwards, the lock holds.
    expect((await signInFrom('127.0.4.1', t.url, shop.email, PASSWORD)).status).toBe(statuses[199] === 303 ? 303 : 429);
  }, 120_000);
});

/** `n` sign-ins, 8 at a time: within what each process's password-hashing pool takes at once (decision 0202). */
async function inBatches<T>(n: number, send: (i: number) => Promise<T>): Promise<T[]> {
  const answers: T[] = [];
  for (let from = 0; from < n; from += 8) {
    answers.push(...(await Promise.all(Array.from({ length: Math.min(8, n - from) }, (_, k) => send(from + k)))));
  }
  return answers;
}

/** Whether the fixed window holding `started` still holds now (real clocks: a second process has no manual one). */
function oneWindow(started: number, windowMs: number): boolean {
  return Math.floor(started / windowMs) === Math.floor(Date.now() / windowMs);
}

/** A sign-in form post from a given loopback address, so that tests can be several clients. */
function signInFrom(localAddress: string, url: string, email: string, password: string) {
  const body = new URLSearchParams({ email, password }).toString();
  const target = new URL(`${url}/dashboard/sign-in`);
  return new Promise<{ status: number; retryAfter: string | undefined }>((resolve, reject) => {
    const req = request(
      target,
      {
        method: 'POST',
        localAddress,
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: target.origin },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] as string }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('obolus accounts set-password and create --password-stdin', () => {
  const { t } = useTestServer('sqlite');

  it('reads one line from stdin, refuses fewer than 12 characters, never prints it, and lists emails', async () => {
    const env = { OBOLUS_DATABASE_URL: t.database.url };
    const created = await runCli(
      ['accounts', 'create', '--name', 'Cli Shop', '--email', 'cli@shop.example', '--password-stdin', '--json'],
      env,
      'first password 123\n',
    );
    expect(created.code).toBe(0);
    const { account_id: id } = JSON.parse(created.stdout);
    expect(created.stdout + created.stderr).not.toContain('first password 123');
    await signInHttp(t, 'cli@shop.example', 'first password 123');

    const short = await runCli(['accounts', 'set-password', id], env, 'elevenchars\n');
    expect(short.code).not.toBe(0);
    expect(short.stderr).toContain('at least 12 characters');
    const set = await runCli(['accounts', 'set-password', id], env, 'a much longer secret\nignored second line\n');
    expect(set.code).toBe(0);
    expect(set.stdout + set.stderr).not.toContain('a much longer secret');
    await signInHttp(t, 'cli@shop.example', 'a much longer secret');
    const missing = await runCli(['accounts', 'set-password', 'acct_nope'], env, 'a much longer secret\n');
    expect(missing.code).not.toBe(0);

    const list = JSON.parse((await runCli(['accounts', 'list', '--json'], env, '')).stdout);
    expect(list.find((a: { account_id: string }) => a.account_id === id).email).toBe('cli@shop.example');
  }, 30_000);
});
