/**
 * `npm run bench`: Obolus against a bare Fastify baseline, in one run on one machine, as
 * ratios (targets: docs/operations.md). Servers run as separate processes; autocannon drives them
 * from this one over loopback. BENCH_DURATION (seconds, default 10) and
 * OBOLUS_BENCH_DATABASE_URL (a postgres:// URL; default a temporary SQLite file) tune it.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { CompactEncrypt, importJWK, type JWK } from 'jose';

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = 50;
const BIN = fileURLToPath(new URL('../packages/server/bin/obolus.js', import.meta.url));
const BASELINE = fileURLToPath(new URL('./baseline-server.ts', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'obolus-bench-'));
const databaseUrl = process.env.OBOLUS_BENCH_DATABASE_URL ?? join(dir, 'bench.db');
const children: ChildProcess[] = [];

function startProcess(args: string[], env: Record<string, string>, ready: RegExp): Promise<string> {
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (d) => {
      out += d;
      const match = ready.exec(out);
      if (match) resolve(match[1] as string);
    });
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}`)));
  });
}

async function json(url: string, init: RequestInit = {}): Promise<any> {
  const res = await fetch(url, init);
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${url}: ${res.status} ${await res.text()}`);
  return res.json();
}

interface Result {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

async function load(name: string, options: autocannon.Options): Promise<Result> {
  process.stderr.write(`  ${name}: ${DURATION} s at ${CONNECTIONS} connections…\n`);
  await autocannon({ ...options, connections: CONNECTIONS, duration: Math.min(2, DURATION) }); // warm-up
  const instance = autocannon({ ...options, connections: CONNECTIONS, duration: DURATION });
  autocannon.track(instance as never, { renderProgressBar: process.stderr.isTTY, renderResultsTable: false });
  const result = await instance;
  return {
    name,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx,
  };
}

async function seedTransaction(base: string, pk: string, sk: string): Promise<string> {
  const intent = await json(`${base}/api/v1/payment-intents`, {
    method: 'POST',
    headers: { authorization: `Bearer ${sk}`, 'content-type': 'application/json' },
    body: JSON.stringify({ amount: 2000, currency: 'USD', mode: 'sandbox' }),
  });
  const jwk = (await json(`${base}/embed/v1/jwks.json`)).keys[0] as JWK;
  const plain = { number: '4242424242424242', exp_month: 12, exp_year: 2040, cvc: '123', name: 'Bench Shopper' };
  const jwe = await new CompactEncrypt(new TextEncoder().encode(JSON.stringify(plain)))
    // Bound to its intent like the widget's (docs/decisions/0080).
    .setProtectedHeader({
      alg: 'RSA-OAEP-256',
      enc: 'A256GCM',
      kid: jwk.kid as string,
      payment_intent: intent.id,
      iat: Math.floor(Date.now() / 1000),
      jti: randomBytes(16).toString('base64url'),
    })
    .encrypt(await importJWK(jwk, 'RSA-OAEP-256'));
  const outcome = await json(`${base}/embed/v1/confirm`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ pk, client_secret: intent.client_secret, mode: 'sandbox', card: jwe }),
  });
  return outcome.transaction_id;
}

function row(r: Result, base?: Result, target?: number): string {
  const ratio = base ? r.rps / base.rps : undefined;
  const verdict =
    ratio === undefined || target === undefined ? '' : ratio >= target ? `ok (>= ${target}x)` : `BELOW ${target}x`;
  return [
    r.name.padEnd(44),
    `${Math.round(r.rps)}`.padStart(8),
    `${r.p50}`.padStart(6),
    `${r.p99}`.padStart(6),
    `${r.errors}`.padStart(6),
    (ratio === undefined ? '' : `${ratio.toFixed(2)}x`).padStart(7),
    ` ${verdict}`,
  ].join(' ');
}

async function main(): Promise<void> {
  console.error(
    `Obolus benchmark (${databaseUrl.startsWith('postgres') ? 'PostgreSQL' : 'SQLite'}), ${DURATION} s per scenario`,
  );
  const env = { OBOLUS_DATABASE_URL: databaseUrl, OBOLUS_LOG_LEVEL: 'info' };
  const account = JSON.parse(
    execFileSync(
      process.execPath,
      [BIN, 'accounts', 'create', '--name', 'Bench', '--email', 'bench@example.com', '--json'],
      {
        env: { ...process.env, ...env },
      },
    ).toString(),
  );
  const basePort = 40000 + Math.floor(Math.random() * 10000);
  const baseline = await startProcess([BASELINE], { PORT: String(basePort) }, /(http:\/\/\S+)\n/);
  const obolus = `http://127.0.0.1:${basePort + 1}`;
  await startProcess([BIN, 'serve'], { ...env, PORT: String(basePort + 1), OBOLUS_BASE_URL: obolus }, /(\/metrics)/);
  const txId = await seedTransaction(obolus, account.client_key, account.secret_key);
  const record = await json(`${obolus}/api/v1/transactions/${txId}`, {
    headers: { authorization: `Bearer ${account.secret_key}` },
  });
  await json(`${baseline}/record`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(record),
  });

  const body = JSON.stringify({ amount: 2000, currency: 'USD', mode: 'sandbox', reference: 'order-1' });
  const post = { method: 'POST' as const, body, headers: { 'content-type': 'application/json' } };
  const auth = { authorization: `Bearer ${account.secret_key}` };
  const results = {
    basePost: await load('baseline POST /api/v1/payment-intents', {
      url: `${baseline}/api/v1/payment-intents`,
      ...post,
    }),
    post: await load('obolus POST /api/v1/payment-intents (durable)', {
      url: `${obolus}/api/v1/payment-intents`,
      ...post,
      headers: { ...post.headers, ...auth },
    }),
    baseGet: await load('baseline GET /api/v1/transactions/{id}', { url: `${baseline}/api/v1/transactions/${txId}` }),
    get: await load('obolus GET /api/v1/transactions/{id}', {
      url: `${obolus}/api/v1/transactions/${txId}`,
      headers: auth,
    }),
  };

  console.log(
    `\n${'scenario'.padEnd(44)} ${'req/s'.padStart(8)} ${'p50ms'.padStart(6)} ${'p99ms'.padStart(6)} ${'errors'.padStart(6)} ${'ratio'.padStart(7)}`,
  );
  console.log(row(results.basePost));
  console.log(row(results.post, results.basePost, 0.6));
  console.log(row(results.baseGet));
  console.log(row(results.get, results.baseGet, 0.6));
  console.log(`create-intent p99 ${results.post.p99} ms at ${CONNECTIONS} connections (target <= 30 ms)`);

  if (existsSync('/usr/bin/chromium')) {
    const { benchWidget } = await import('./widget.ts');
    const widget = await benchWidget();
    console.log(`widget JavaScript ${(widget.gzipBytes / 1024).toFixed(1)} KB gzipped (target < 30 KB)`);
    console.log(`widget card form interactive in ${Math.round(widget.interactiveMs)} ms on loopback (target < 300 ms)`);
  } else {
    console.log('widget: skipped (no /usr/bin/chromium; apt-get install -y chromium)');
  }
}

try {
  await main();
} finally {
  for (const child of children) child.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
}
