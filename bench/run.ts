/**
 * `npm run bench [-- --quick] [-- --profile]`: Obolus against a bare Fastify baseline with the
 * same validation and serialization, in one run on one machine, quoted as ratios. SQLite
 * always; PostgreSQL with 1 and 2 workers when OBOLUS_BENCH_DATABASE_URL or
 * OBOLUS_TEST_DATABASE_URL names one. Also the RSS of every server process after its
 * scenarios, and how long `obolus --help` and a usage error take. Writes
 * bench/results/latest.json; with --profile, CPU profiles of every server process under
 * bench/results/profiles/. BENCH_DURATION (seconds per scenario, default 10; 1 with --quick).
 * `--only confirm_sandbox,create_intent` runs those scenarios only, `--engines sqlite,pg1,pg2`
 * those runs only; a partial run writes bench/results/partial.json instead and skips the widget
 * and the CLI start. `-- --scale`: the dashboard's pages over BENCH_SCALE (default 1,000,000)
 * payments in the month instead (bench/scale.ts), into bench/results/scale.json. How to read
 * it: docs/performance.md.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { freePort } from '../packages/server/test/support/free-port.ts';
import { cliLine, measureCliStart } from './cli-start.ts';
import { CONNECTIONS, type LoadPlan, type Measured } from './load.ts';
import { memoryLine, type ServerMemory, serverMemory } from './memory.ts';
import { startProcess, stopAll } from './processes.ts';
import { writeProfileSummary } from './profile-report.ts';
import { figures, machine, type Run, table, writeResults } from './report.ts';
import { pagesTable, seedPayments, signIn, timePages } from './scale.ts';
import {
  chosenScenarios,
  confirmBodies,
  type Keys,
  runScenarios,
  SCENARIOS,
  type Scenario,
  type Seeded,
  seed,
} from './scenarios.ts';

const quick = process.argv.includes('--quick');
const scale = process.argv.includes('--scale');
const profile = process.argv.includes('--profile');
const only = chosenScenarios(process.argv);
const engines = chosenEngines(process.argv);
const seconds = Number(process.env.BENCH_DURATION ?? (quick ? 1 : 10));
const plan: LoadPlan = { seconds, warmup: quick ? 0.5 : 2 };
const BIN = fileURLToPath(new URL('../packages/server/bin/obolus.js', import.meta.url));
const BASELINE = fileURLToPath(new URL('./baseline-server.ts', import.meta.url));
const RESULTS = fileURLToPath(new URL('./results/', import.meta.url));
const postgresUrl = process.env.OBOLUS_BENCH_DATABASE_URL ?? process.env.OBOLUS_TEST_DATABASE_URL;
const dir = mkdtempSync(join(tmpdir(), 'obolus-bench-'));

interface Target {
  engine: Run['engine'];
  workers: number;
  url: string;
}

/** A PostgreSQL schema of its own for one run, dropped at the end. */
async function withSchema<T>(url: string, work: (url: string) => Promise<T>): Promise<T> {
  const schema = `obolus_bench_${process.pid}_${Date.now()}`;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(`create schema ${schema}`);
  try {
    const scoped = new URL(url);
    scoped.searchParams.set('options', `-c search_path=${schema}`);
    return await work(scoped.toString());
  } finally {
    await client.query(`drop schema ${schema} cascade`);
    await client.end();
  }
}

function createAccount(env: Record<string, string>): Keys {
  // Only serve and migrate create a database (decision 0231): the account needs one first.
  execFileSync(process.execPath, [BIN, 'migrate'], { env: { ...process.env, ...env }, stdio: 'ignore' });
  const out = execFileSync(
    process.execPath,
    [BIN, 'accounts', 'create', '--name', 'Bench', '--email', 'b@example.com', '--json'],
    {
      env: { ...process.env, ...env },
    },
  );
  const account = JSON.parse(out.toString());
  return { secret: account.secret_key, client: account.client_key };
}

/** `--engines sqlite,pg1,pg2`: the runs to make (all of them when not given; pg ones need a URL). */
function chosenEngines(argv: readonly string[]): ReadonlySet<string> {
  const all = ['sqlite', 'pg1', 'pg2'];
  const at = argv.indexOf('--engines');
  if (at < 0) return new Set(all);
  const names = (argv[at + 1] ?? '').split(',').filter(Boolean);
  if (names.length === 0 || names.some((name) => !all.includes(name))) {
    throw new Error(`--engines takes runs separated by commas, of: ${all.join(', ')}`);
  }
  return new Set(names);
}

let baseline: Partial<Record<Scenario, Measured>> | undefined;

async function measureBaseline(seeded: Seeded, keys: Keys): Promise<Partial<Record<Scenario, Measured>>> {
  const server = await startProcess([BASELINE], { PORT: '0' }, /(http:\/\/\S+)\n/);
  try {
    for (const kind of ['intent', 'transaction', 'list', 'outcome'] as const) {
      await fetch(`${server.value}/record/${kind}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(seeded[kind]),
      });
    }
    return await runScenarios(
      'baseline',
      server.value,
      keys,
      seeded,
      plan,
      async (count) =>
        Array.from({ length: count }, () =>
          JSON.stringify({ pk: keys.client, client_secret: 'x', mode: 'sandbox', card: 'x.y.z' }),
        ),
      only,
    );
  } finally {
    await server.stop();
  }
}

const BENCH_MASTER_KEY = randomBytes(32).toString('base64');

async function benchTarget(target: Target): Promise<Run> {
  const name = target.engine === 'postgres' ? `postgres x${target.workers}` : 'sqlite';
  process.stderr.write(`\n${name}\n`);
  const env = {
    OBOLUS_DATABASE_URL: target.url,
    OBOLUS_LOG_LEVEL: 'info',
    OBOLUS_WEBHOOKS_POLL_MS: '1000',
    // The bench drives one account far above its 100 requests a second: the limits are raised to
    // their maximum, not switched off, so that every request still pays for the limiter
    // (decision 0150; docs/performance.md).
    OBOLUS_API_RATE_LIMIT_LIVE: '1000000',
    OBOLUS_API_RATE_LIMIT_SANDBOX: '1000000',
    OBOLUS_API_RATE_LIMIT_ADDRESS: '1000000',
    // The load generator stands for a proxy in front of many shoppers (bench/scenarios.ts, confirm).
    OBOLUS_TRUST_PROXY: 'loopback',
    // PostgreSQL needs one (decision 0070); the bench's schema is dropped at the end, and the key with it.
    ...(target.engine === 'postgres' ? { OBOLUS_MASTER_KEY: BENCH_MASTER_KEY } : {}),
  };
  const keys = createAccount(env);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const profileDir = join(RESULTS, 'profiles', name.replace(' ', '-'));
  const profiling = profile ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  const workers = target.workers > 1 ? ['--workers', String(target.workers)] : [];
  let measured: Partial<Record<Scenario, Measured>> | undefined;
  let memory: ServerMemory | undefined;
  // A metrics port of its own: on the default one, taken by any other `obolus serve` on the
  // machine, the server starts without metrics and its banner names no /metrics to wait for.
  const server = await startProcess(
    [...profiling, BIN, 'serve', ...workers],
    { ...env, PORT: String(port), OBOLUS_BASE_URL: base, OBOLUS_METRICS_PORT: String(await freePort()) },
    /(\/metrics)/,
  );
  try {
    const seeded = await seed(base, keys);
    baseline ??= await measureBaseline(seeded, keys);
    measured = await runScenarios(name, base, keys, seeded, plan, (count) => confirmBodies(base, keys, count), only);
    memory = serverMemory(server.pid);
    process.stderr.write(`  ${memoryLine('memory', memory)}\n`);
    return { engine: target.engine, workers: target.workers, scenarios: figures(measured, baseline), memory };
  } finally {
    await server.stop(); // a CPU profile is written on the way out
    if (profile && measured) {
      const summary = writeProfileSummary(profileDir, name, measured);
      if (summary) process.stderr.write(`  CPU per request, by scenario: ${summary}\n`);
    }
  }
}

async function widget(): Promise<Record<string, unknown>> {
  if (!existsSync('/usr/bin/chromium')) {
    process.stderr.write('widget: skipped (no /usr/bin/chromium; apt-get install -y chromium)\n');
    return {};
  }
  process.stderr.write('\nwidget (gzipped size, time to an interactive card form)\n');
  const { benchWidget } = await import('./widget.ts');
  const result = await benchWidget(quick ? 3 : 9);
  return {
    widget: {
      gzip_bytes: result.gzipBytes,
      interactive_ms: result.interactiveMs,
      page_interactive_ms: result.pageInteractiveMs,
    },
  };
}

async function main(): Promise<void> {
  const started = Date.now();
  process.stderr.write(
    `Obolus benchmark: ${seconds} s per scenario at ${CONNECTIONS} connections${quick ? ' (quick)' : ''}\n`,
  );
  const runs: Run[] = [];
  if (engines.has('sqlite')) runs.push(await benchTarget({ engine: 'sqlite', workers: 1, url: join(dir, 'bench.db') }));
  if (postgresUrl) {
    for (const workers of [1, 2]) {
      if (!engines.has(`pg${workers}`)) continue;
      runs.push(await withSchema(postgresUrl, (url) => benchTarget({ engine: 'postgres', workers, url })));
    }
  }
  // The widget and the CLI's start are measured by a full bench only.
  const partial = only.length < SCENARIOS.length || engines.size < 3;
  let extra: Record<string, unknown> = { duration_s: seconds, connections: CONNECTIONS };
  let cli: ReturnType<typeof measureCliStart> | undefined;
  if (partial) {
    extra = { ...extra, only: only.join(','), engines: [...engines].join(',') };
  } else {
    process.stderr.write('\ncli start (median of 15 runs each)\n');
    cli = measureCliStart(BIN, 15);
    extra = { ...extra, cli, ...(await widget()) };
  }
  console.log(`\n${table(runs)}`);
  for (const run of runs) {
    if (run.memory)
      console.log(memoryLine(run.engine === 'postgres' ? `postgres x${run.workers}` : 'sqlite', run.memory));
  }
  if (cli) console.log(cliLine(cli));
  const w = extra.widget as { gzip_bytes: number; interactive_ms: number } | undefined;
  if (w)
    console.log(
      `widget: ${(w.gzip_bytes / 1024).toFixed(1)} KB gzipped, card form interactive in ${w.interactive_ms} ms`,
    );
  // A partial run does not replace the last full one.
  const file = partial ? 'partial.json' : 'latest.json';
  writeResults(join(RESULTS, file), runs, extra);
  process.stderr.write(`\nwrote bench/results/${file} in ${Math.round((Date.now() - started) / 1000)} s\n`);
}

const DASHBOARD_PASSWORD = 'bench dashboard password';

/** `--scale`: one engine's dashboard over a month of `count` payments. */
async function scaleTarget(engine: Run['engine'], url: string, count: number) {
  process.stderr.write(`\n${engine}: ${count.toLocaleString('en')} payments in the month\n`);
  const env = {
    OBOLUS_DATABASE_URL: url,
    OBOLUS_LOG_LEVEL: 'warn',
    ...(engine === 'postgres' ? { OBOLUS_MASTER_KEY: BENCH_MASTER_KEY } : {}),
  };
  const cli = (args: string[], input?: string) =>
    execFileSync(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, input: input ?? '' }).toString();
  cli(['migrate']);
  const email = 'scale@example.com';
  const account = JSON.parse(
    cli(
      ['accounts', 'create', '--name', 'Scale', '--email', email, '--password-stdin', '--json'],
      `${DASHBOARD_PASSWORD}\n`,
    ),
  ) as { account_id: string };
  const started = Date.now();
  await seedPayments(engine, url, account.account_id, count, Date.now(), (done) => {
    const s = (Date.now() - started) / 1000;
    process.stderr.write(
      `\r  seeded ${done.toLocaleString('en')} of ${count.toLocaleString('en')} (${s.toFixed(0)} s)`,
    );
  });
  const seedS = Math.round((Date.now() - started) / 1000);
  process.stderr.write('\n');
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const server = await startProcess(
    [BIN, 'serve'],
    { ...env, PORT: String(port), OBOLUS_BASE_URL: base, OBOLUS_METRICS_PORT: String(await freePort()) },
    /(\/metrics)/,
  );
  try {
    const cookie = await signIn(base, email, DASHBOARD_PASSWORD);
    const pages = await timePages(base, cookie, quick ? 5 : 20);
    const memory = serverMemory(server.pid);
    // Each engine's table as soon as it is measured: the next engine's seeding takes minutes.
    process.stderr.write(`\n${pagesTable(engine, pages)}\n${memoryLine(engine, memory)}\n`);
    return { engine, payments: count, seed_s: seedS, pages, memory };
  } finally {
    await server.stop();
  }
}

async function mainScale(): Promise<void> {
  const count = Number(process.env.BENCH_SCALE ?? 1_000_000);
  const runs = [await scaleTarget('sqlite', join(dir, 'scale.db'), count)];
  if (postgresUrl) runs.push(await withSchema(postgresUrl, (url) => scaleTarget('postgres', url, count)));
  for (const run of runs) console.log(`\n${pagesTable(run.engine, run.pages)}\n${memoryLine(run.engine, run.memory)}`);
  const file = join(RESULTS, 'scale.json');
  mkdirSync(RESULTS, { recursive: true });
  writeFileSync(file, `${JSON.stringify({ machine: machine(), node: process.version, runs }, null, 2)}\n`);
  process.stderr.write(`\nwrote bench/results/scale.json\n`);
}

try {
  await (scale ? mainScale() : main());
} finally {
  await stopAll();
  rmSync(dir, { recursive: true, force: true });
}
