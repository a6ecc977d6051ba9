import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { number as cardNumber } from 'card-validator';
import { describe, expect, it } from 'vitest';
import { HOUR } from '../src/clock.ts';
import { SANDBOX_TEST_CARDS } from '../src/connectors/sandbox/sandbox.ts';
import { masterKeyFileFor } from '../src/crypto/master-key.ts';
import { rollSecretKey } from '../src/domain/accounts.ts';
import { redactUrl } from '../src/logger.ts';
import { WebhookDispatcher } from '../src/workers/webhooks/dispatcher.ts';
import { BATTERY_TIMEOUT_MS, count, reportFigure } from './support/battery.ts';
import { ENGINES } from './support/engines.ts';
import type { TestServer } from './support/server.ts';
import { useTestServer } from './support/use-test-server.ts';
import { useReceiver } from './support/webhook-receiver.ts';
import { card, confirm, createIntent } from './support/widget-client.ts';

/** Digit runs of card length (spaces or dashes between digits allowed, as shoppers type them). */
const DIGIT_RUNS = /\d(?:[ -]?\d){12,18}/g;

/**
 * Obolus's own identifiers and digests: UUIDs, 24 hex digits (intents, transactions), and
 * longer hex runs with a letter in them (SHA-256 digests of keys, request bodies and card
 * ciphertexts). Their digit runs are random, and some pass as card numbers (seen in CI:
 * 667470…8290): the scan skips them. A run of digits only is never skipped, however long.
 * UUIDs go first and whatever touches them: in the SQLite file a transaction's uuid follows
 * its id with nothing between, so the id's hex ran into the uuid's first group, and the rest
 * of the uuid was read as digits and dashes (seen in CI: 689154…0504).
 */
const UUIDS = /[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}/g;
const OUR_IDS = /(?<![0-9a-f])(?:[0-9a-f]{24}|(?=[0-9a-f]*[a-f])[0-9a-f]{25,})(?![0-9a-f])/g;

/** Card numbers a brand would issue (known prefix, length, Luhn) found in `text`, outside our ids. */
export function cardNumbersIn(text: string): string[] {
  const found: string[] = [];
  for (const match of text.replace(UUIDS, ' ').replace(OUR_IDS, ' ').matchAll(DIGIT_RUNS)) {
    const digits = match[0].replace(/[ -]/g, '');
    // Any window of a longer run may be the card: try each length at each start.
    for (let start = 0; start + 13 <= digits.length; start++) {
      for (let length = 13; start + length <= digits.length && length <= 19; length++) {
        const candidate = digits.slice(start, start + length);
        if (cardNumber(candidate).isValid) found.push(candidate);
      }
    }
  }
  return found;
}

interface Secrets {
  secretKeys: string[];
  signingSecrets: string[];
  pans: string[];
  cvcs: string[];
  masterKey: string;
}

/** Every way a secret of the run could show in `text`; empty when none does. */
function leaks(where: string, text: string, s: Secrets): string[] {
  const out: string[] = [];
  for (const key of s.secretKeys)
    if (text.includes(key) || text.includes(key.slice(3))) out.push(`${where}: secret key`);
  for (const secret of s.signingSecrets) {
    if (text.includes(secret.slice('whsec_'.length))) out.push(`${where}: signing secret`);
  }
  if (/sk_[0-9A-Za-z]{32}/.test(text)) out.push(`${where}: something shaped like a secret key`);
  if (/whsec_[0-9A-Za-z+/=]{20,}/.test(text)) out.push(`${where}: something shaped like a signing secret`);
  for (const pan of new Set(cardNumbersIn(text))) out.push(`${where}: card number ${pan.slice(0, 6)}…${pan.slice(-4)}`);
  for (const pan of s.pans) if (text.includes(pan)) out.push(`${where}: card number ${pan}`);
  if (/"cvc"\s*:\s*"?\d|cvc=\d|"cvv"\s*:/i.test(text)) out.push(`${where}: a CVC field with a value`);
  if (/PRIVATE KEY-----|"d"\s*:\s*"[A-Za-z0-9_-]{40,}"/.test(text)) out.push(`${where}: a private key`);
  if (s.masterKey && text.includes(s.masterKey)) out.push(`${where}: the master key`);
  return out;
}

/** The database as an attacker with a copy of it would read it. */
function databaseText(t: TestServer): string {
  if (t.engine === 'sqlite') {
    const dir = dirname(t.database.url);
    // Every file of the database (with -wal and -shm); its `.holders/` directory holds only pids.
    return readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.name.startsWith('obolus.db') && entry.isFile())
      .map((entry) => readFileSync(join(dir, entry.name)).toString('latin1'))
      .join('\n');
  }
  const url = new URL(t.database.url);
  return execFileSync(
    'pg_dump',
    [
      '-U',
      'postgres',
      '-h',
      url.hostname,
      '-p',
      url.port || '5432',
      '-n',
      t.database.schema as string,
      url.pathname.slice(1),
    ],
    { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 },
  );
}

describe.each(ENGINES)('secrets in the database, logs and webhooks after a representative run (%s)', (engine) => {
  const secrets: Secrets = { secretKeys: [], signingSecrets: [], pans: [], cvcs: [], masterKey: '' };
  const rounds = count(1, 10);
  const receiver = useReceiver();
  const { t } = useTestServer(engine, {
    config: {
      webhooksAllowLoopback: true,
      webhooksPollMs: 0,
      ...(engine === 'sqlite' ? { masterKey: undefined } : {}),
    },
  });

  it(
    'finds no card number beyond first 6 / last 4, no CVC, secret key, signing secret or private key',
    async () => {
      const shops = [await t.newAccount(), await t.newAccount()];
      secrets.secretKeys.push(...shops.map((s) => s.secretKey));
      for (const shop of shops) {
        const created = await t.call('POST', '/api/v1/webhook-endpoints', {
          key: shop.secretKey,
          body: { url: receiver.url, enabled_events: ['*'], mode: 'sandbox' },
        });
        expect(created.status).toBe(200);
        secrets.signingSecrets.push(created.json.secret);
        const rolled = await t.call('POST', `/api/v1/webhook-endpoints/${created.json.id}/secret/roll`, {
          key: shop.secretKey,
          body: { grace_period_hours: 1 },
        });
        expect(rolled.status).toBe(200);
        secrets.signingSecrets.push(rolled.json.secret);
      }
      let payments = 0;
      for (let round = 0; round < rounds; round++) {
        // Declining cards once only: this client stays under the card-testing cap (20 failures a minute).
        const cards = SANDBOX_TEST_CARDS.filter(
          (c) => round === 0 || c.scenario.kind === 'approve' || c.scenario.kind === 'challenge',
        );
        for (const test of cards) {
          const shop = shops[payments % 2]!;
          const intent = await createIntent(t, shop.secretKey, { amount: 1000 + payments });
          // A distinctive CVC per payment, of the brand's length.
          const cvc = String(100 + (payments % 900)).padStart(test.number.length === 15 ? 4 : 3, '7');
          const paid = await confirm(t, shop.clientKey, intent.client_secret, card(test.number, { cvc }), {
            headers: { 'x-forwarded-for': `203.0.113.${round + 1}` },
          });
          expect(paid.status, paid.text).toBe(200);
          if (paid.json.status === 'succeeded') {
            const refund = await t.call('POST', `/api/v1/transactions/${paid.json.transaction_id}/refunds`, {
              key: shop.secretKey,
              body: { amount: 100 },
            });
            expect(refund.status).toBe(200);
          }
          secrets.pans.push(test.number);
          secrets.cvcs.push(cvc);
          payments++;
        }
        // A key roll with grace: both the old and the new key are in use afterwards.
        const rolled = await rollSecretKey(t.server.services.repos.accounts, t.server.services.clock, shops[0]!.id, 1);
        secrets.secretKeys.push(rolled.secretKey);
        await t.server.services.keyring.rotate(HOUR);
      }
      // Mistakes a merchant makes: a wrong key, a key in the query string.
      await t.call('GET', `/api/v1/payment-intents?key=${shops[0]!.secretKey}`, { key: `${shops[1]!.secretKey}x` });
      // The same, percent-encoded (issue 25 item 7): after a hex digit `\b` found no boundary.
      for (const query of [
        `authorization=Bearer%20${shops[0]!.secretKey}`,
        `k=%22${shops[0]!.secretKey}%22`,
        `k=%2520${shops[0]!.secretKey}`,
        `k=${shops[0]!.secretKey.replace('_', '%5F')}`,
        `${encodeURIComponent(`Bearer ${shops[0]!.secretKey}`)}=1`,
      ]) {
        await t.call('GET', `/api/v1/payment-intents?${query}`, { key: `${shops[1]!.secretKey}x` });
      }
      const dispatcher = new WebhookDispatcher(t.server.services);
      for (let i = 0; i < 20 && (await dispatcher.runOnce()).attempts.length > 0; i++) {}
      expect(receiver.received.length).toBeGreaterThan(payments);

      secrets.masterKey =
        engine === 'sqlite'
          ? readFileSync(masterKeyFileFor(t.database.url), 'utf8')
              .trim()
              .split(/[\s,]+/)
              .pop()!
          : (process.env.OBOLUS_MASTER_KEY as string);
      const logText = t.logs();
      const webhookText = receiver.received.map((w) => `${JSON.stringify(w.headers)}\n${w.body}`).join('\n');
      const dbText = databaseText(t);
      // The scan itself can fail: what it looks for is there in what the run sent.
      expect(leaks('sent', JSON.stringify(secrets), secrets).length).toBeGreaterThan(0);
      const found = [
        ...leaks('database', dbText, secrets),
        ...leaks('logs', logText, secrets),
        ...leaks('webhooks', webhookText, secrets),
      ];
      expect(found).toEqual([]);
      reportFigure(
        `secrets scan (${engine})`,
        `${payments} payments with CVC, ${secrets.secretKeys.length} secret keys, ${secrets.signingSecrets.length} signing secrets; ` +
          `scanned ${(dbText.length / 1024).toFixed(0)} KiB of database, ${logText.split('\n').length} log lines, ` +
          `${receiver.received.length} webhooks: 0 findings`,
      );
    },
    BATTERY_TIMEOUT_MS,
  );
});

describe('the scan and the log redaction it relies on', () => {
  it('finds card numbers as typed (spaces, dashes, inside other digits) and not timestamps or masks', () => {
    expect(cardNumbersIn('pan 4242 4242 4242 4242 and 3782-822463-10005')).toEqual([
      '4242424242424242',
      '378282246310005',
    ]);
    expect(cardNumbersIn('x9942424242424242420')).toContain('4242424242424242');
    expect(cardNumbersIn('at 1763857000000 first6 424242 last4 4242 id 0123456789abcdef')).toEqual([]);
    // An intent id whose digits happen to pass (seen in a PostgreSQL run: 642039…8092), and a
    // client_secret around it, are ids; the same digits standing alone are a card number.
    const id = '6420390000000000008092ab';
    expect(cardNumbersIn(`"id":"${id}","client_secret":"pi_${id}_secret_x"`)).toEqual([]);
    expect(cardNumbersIn(`pan ${id.slice(0, 22)}`)).not.toEqual([]);
    // A SHA-256 digest whose digits happen to pass is a digest; digits only are a card number.
    const digest = `ab${'4242424242424242'}${'c'.repeat(46)}`;
    expect(cardNumbersIn(`"digest":"${digest}"`)).toEqual([]);
    expect(cardNumbersIn(`x${'4242424242424242'.repeat(2)}0000`)).toContain('4242424242424242');
    // A transaction's id and uuid side by side in the SQLite file, the uuid's last groups digits
    // that pass; the same digits and dashes outside a uuid are a card number.
    const uuid = '01a20953-7042-4242-4242-424242ab0000';
    expect(cardNumbersIn(`\u0003${id}${uuid}\u0001`)).toEqual([]);
    expect(cardNumbersIn('card 42-4242-4242-424242')).toEqual(['4242424242424242']);
  });

  it('logged URLs keep only the prefix of a secret key, signing secret, client secret or challenge token', () => {
    const url = '/x?key=sk_abcDEF123&s=whsec_AbC%2B9&cs=pi_0123_secret_XyZ789&c=/embed/v1/challenge/chl_Q1w2';
    expect(redactUrl(url)).toBe(
      '/x?key=sk_[redacted]&s=whsec_[redacted]&cs=pi_0123_secret_[redacted]&c=/embed/v1/challenge/chl_[redacted]',
    );
    expect(redactUrl('/api/v1/transactions?risk_level=high')).toBe('/api/v1/transactions?risk_level=high');
    expect(redactUrl('/x?risk_level=high&q=a%20b+c')).toBe('/x?risk_level=high&q=a%20b+c');
  });

  it('percent-encoded credentials are redacted too (issue 25 item 7)', () => {
    expect(redactUrl('/x?authorization=Bearer%20sk_ab12CD')).toBe('/x?authorization=Bearer sk_[redacted]');
    expect(redactUrl('/x?k=%22sk_ab12CD%22')).toBe('/x?k="sk_[redacted]"');
    expect(redactUrl('/x?k=%2520whsec_ab12CD')).toBe('/x?k= whsec_[redacted]');
    expect(redactUrl('/x?k=sk%5Fab12CD&limit=3')).toBe('/x?k=sk_[redacted]&limit=3');
    expect(redactUrl('/x?Bearer%2Bsk_ab12CD=1')).toBe('/x?Bearer+sk_[redacted]=1');
    expect(redactUrl('/embed/v1/challenge/chl%5FQ1w2')).toBe('/embed/v1/challenge/chl_[redacted]');
    expect(redactUrl('/x?bad=%E0%A4%A&k=%22sk_ab12CD')).toBe('/x?bad=%E0%A4%A&k="sk_[redacted]');
  });
});
