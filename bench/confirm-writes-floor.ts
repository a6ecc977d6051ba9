/**
 * `npx node bench/confirm-writes-floor.ts [confirms]`: the floor of a confirm's SQLite work, with no
 * server around it. The statements the writer thread runs for one sandbox confirm (begin, then
 * finish: store/sqlite-attempts.ts, the very same units) on a fresh database of the bench's shape,
 * batched as the writer thread batches them (25 units to a durable commit), then the events alone
 * in three forms: as written now, with the sequence number given instead of a max() over the
 * events index, and as a plain insert. Reports wall and CPU microseconds per confirm
 * (docs/performance.md, "The confirm").
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { intentEvent } from '../packages/server/src/domain/intents.ts';
import {
  NOT_YET_PROCESSED,
  type Transaction,
  TX_STATUS,
  transactionEvent,
} from '../packages/server/src/domain/transactions.ts';
import { type AccountId, newIntentId, newTransactionId, uuidv7 } from '../packages/server/src/ids.ts';
import { startedIntent } from '../packages/server/src/store/attempt-hot-paths.ts';
import { appendEventsSql, eventParams, eventRow } from '../packages/server/src/store/event-insert.ts';
import { INTENT_COLUMNS } from '../packages/server/src/store/hot-paths.ts';
import { toIntent } from '../packages/server/src/store/repos/intents.ts';
import type { PaymentIntentsTable } from '../packages/server/src/store/schema.ts';
import { beginUnit, finishUnit } from '../packages/server/src/store/sqlite-attempts.ts';
import type { Statement } from '../packages/server/src/store/sqlite-writer.ts';
import { openWriterConnection } from '../packages/server/src/store/sqlite-writer-connection.ts';

const CONFIRMS = Number(process.argv[2] ?? 5000);
const BATCH = 25;
const BIN = fileURLToPath(new URL('../packages/server/bin/obolus.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'obolus-floor-'));
const file = join(dir, 'floor.db');
const env = { ...process.env, OBOLUS_DATABASE_URL: file };
execFileSync(process.execPath, [BIN, 'migrate'], { env, stdio: 'ignore' });
const accountId = JSON.parse(
  execFileSync(process.execPath, [BIN, 'accounts', 'create', '--name', 'F', '--email', 'f@example.com', '--json'], {
    env,
  }).toString(),
).account_id as AccountId;

// As the writer thread opens its connection.
const { db, prepared } = openWriterConnection(file);

/** Units in batches of BATCH, each batch one transaction and one durable commit: µs of wall and CPU per unit. */
function timed(units: Statement[][]): { wall: number; cpu: number } {
  const wall = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  for (let i = 0; i < units.length; i += BATCH) {
    prepared('begin immediate').run();
    for (const unit of units.slice(i, i + BATCH)) {
      for (const statement of unit) prepared(statement.sql).run(statement.params as unknown[]);
    }
    prepared('commit').run();
  }
  const used = process.cpuUsage(cpu);
  return {
    wall: Number(process.hrtime.bigint() - wall) / 1000 / units.length,
    cpu: (used.user + used.system) / units.length,
  };
}

const now = Date.now();
const INSERT_INTENT = `insert into payment_intents (${INTENT_COLUMNS.join(', ')})
  values (${INTENT_COLUMNS.map((c) => `@${c}`).join(', ')})`;
const intents = Array.from({ length: CONFIRMS }, (_, i): PaymentIntentsTable => {
  const at = now + i;
  const id = newIntentId(at);
  return {
    id,
    account_id: accountId,
    amount: 2000,
    currency: 'USD',
    status: 'requires_payment',
    mode: 'sandbox',
    client_secret: `${id}_secret_${'x'.repeat(24)}`,
    reference: 'order-1',
    externalid: null,
    descriptor: null,
    description: null,
    theme: null,
    metadata: '{}',
    product_id: null,
    created_at: at,
    updated_at: at,
    expires_at: at + 7 * 86_400_000,
    last_transaction_id: null,
    failed_attempts: 0,
    idempotency_key: null,
    capture_method: 'automatic',
    capture_before: null,
    canceled_at: null,
    cancellation_reason: null,
  };
});
timed(intents.map((row) => [{ sql: INSERT_INTENT, params: { ...row } }]));

const attempts = intents.map((row, i) => {
  const intent = toIntent(row);
  const at = now + i;
  const tx: Transaction = {
    id: newTransactionId(at),
    uuid: uuidv7(at),
    accountId: intent.accountId,
    paymentIntentId: intent.id,
    mode: 'sandbox',
    status: TX_STATUS.pending,
    amount: 2000,
    currency: 'USD',
    feeAmount: 88,
    feeBps: 290,
    feeFixedMinor: 30,
    refundedAmount: 0,
    card: { bin: '424242', last4: '4242', length: 16, brand: 'Visa', expMonth: 12, expYear: 2034 },
    cardholder: 'Jane Doe',
    cardCountry: null,
    cardBank: null,
    externalid: null,
    productId: null,
    chargeback: false,
    declineCode: null,
    declineMessage: null,
    threeDS: null,
    authorizationCode: null,
    processor: 'sandbox',
    challengeToken: null,
    processorChallengeRef: null,
    disputeAt: null,
    clientIp: `10.0.${(i >> 8) & 255}.${i & 255}`,
    ...NOT_YET_PROCESSED,
    createdAt: at,
    updatedAt: at,
  } as Transaction;
  return { intent, tx, at };
});
const slotOf = (tx: Transaction, at: number) => ({
  scope: 'payment_failures',
  subject: tx.clientIp ?? '',
  windowStart: at - (at % 60_000),
  windowMs: 60_000,
  limit: 20,
});

const begins = attempts.map(({ intent, tx, at }) => {
  const after = startedIntent(intent, tx, at);
  const use = { jti: `jti${at}x${tx.id}`, accountId, paymentIntentId: intent.id, usedAt: at, expiresAt: at + 300_000 };
  return beginUnit(intent, tx, { now: at, maxFailedAttempts: 10, ciphertext: use, slot: slotOf(tx, at) }, [
    intentEvent('payment_intent.processing', after),
    transactionEvent('transaction.created', tx),
  ]);
});
const finishes = attempts.map(({ intent, tx, at }) => {
  const started = startedIntent(intent, tx, at);
  const settled = { ...tx, status: TX_STATUS.settled, authorizationCode: '123456', threeDS: 'frictionless' as const };
  const after = { ...started, status: 'succeeded' as const };
  return finishUnit(started, settled, { intentStatus: 'succeeded', release: slotOf(tx, at) }, [
    transactionEvent('transaction.updated', settled),
    intentEvent('payment_intent.succeeded', after),
  ]);
});

const us = (n: number) => n.toFixed(0).padStart(5);
const report = (label: string, t: { wall: number; cpu: number }) =>
  console.log(`${label.padEnd(58)} ${us(t.wall)} µs wall ${us(t.cpu)} µs CPU per confirm`);

report('begin (CAS, slot, ciphertext, attempt, 2 events)', timed(begins));
report('finish (attempt, intent, 2 events, slot back)', timed(finishes));

// The events alone, two a unit as a confirm's writes have them, in three forms.
const drafts = attempts.map(({ intent, tx, at }) => [
  eventParams(eventRow(intentEvent('payment_intent.processing', startedIntent(intent, tx, at)), at)),
  eventParams(eventRow(transactionEvent('transaction.created', tx), at)),
]);
const fresh = (params: unknown[], n: number) => [
  `${params[0]}e${n}`,
  ...params.slice(1, 5),
  `${params[5]}e${n}`,
  ...params.slice(6),
];
const CURRENT = appendEventsSql(false, 2);
const GIVEN_SEQ = CURRENT.replace(/coalesce\(\(select max\(e\.object_seq\)[^)]*\), 0\)/, '0');
if (GIVEN_SEQ === CURRENT) throw new Error('the events statement changed: update this prototype');
const PLAIN = `insert into events (id, account_id, type, mode, object_type, object_id, object_seq, data, created_at, fanned_out_at)
  values (?, ?, ?, ?, ?, ?, 1, ?, ?, ?), (?, ?, ?, ?, ?, ?, 1, ?, ?, ?)`;
const eventsAs = (sql: string, n: number, plain = false) =>
  drafts.map(([a, b]) => {
    const [x, y] = [fresh(a as unknown[], n), fresh(b as unknown[], n)];
    return [{ sql, params: plain ? [...x, x[7], ...y, y[7]] : [...x, ...y] }];
  });
report('2 events as written now (max() + anyone listening)', timed(eventsAs(CURRENT, 1)));
report('2 events, the sequence number given', timed(eventsAs(GIVEN_SEQ, 2)));
report('2 events, a plain insert', timed(eventsAs(PLAIN, 3, true)));
db.close();
rmSync(dir, { recursive: true, force: true });
