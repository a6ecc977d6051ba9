import { Writable } from 'node:stream';
import type { Clock } from '../../src/clock.ts';
import { type Config, loadConfig } from '../../src/config.ts';
import { createAccount } from '../../src/domain/accounts.ts';
import type { Processor } from '../../src/domain/payments/ports.ts';
import type { AccountId } from '../../src/ids.ts';
import { createLogger } from '../../src/logger.ts';
import { type RunningServer, startServer } from '../../src/server.ts';
import type { Engine } from '../../src/store/database.ts';
import { assertResponseInContract } from './contract.ts';
import { createTestDatabase, SUITE_DATABASE_TIMEOUTS, type TestDatabase } from './engines.ts';
import { freePort } from './free-port.ts';

export interface TestAccount {
  id: AccountId;
  secretKey: string;
  clientKey: string;
}

export interface CallOptions {
  key?: string | null;
  body?: unknown;
  /** Sent as is, instead of JSON of `body`. */
  rawBody?: string;
  headers?: Record<string, string>;
}

/**
 * An answer of the server under test. `T` is what the test expects the body to be, e.g.
 * `t.call<PaymentIntent>(...)` with the SDK's types (packages/node/src/api-types.ts, generated
 * from the OpenAPI document); `any` by default, for answers a test reads loosely or expects to be
 * an error. Nothing checks `json` against `T`: assertResponseInContract checks it against the
 * OpenAPI document.
 */
export interface TestResponse<T = any> {
  status: number;
  headers: Headers;
  text: string;
  json: T;
}

export interface TestServer {
  engine: Engine;
  url: string;
  server: RunningServer;
  database: TestDatabase;
  /** Every log line the server wrote, as text. */
  logs(): string;
  newAccount(name?: string): Promise<TestAccount>;
  call<T = any>(method: string, path: string, options?: CallOptions): Promise<TestResponse<T>>;
  close(): Promise<void>;
}

/**
 * Settings of a server whose tests deliver webhooks themselves: endpoints on loopback allowed
 * (the tests' receivers), and no dispatcher loop (a test runs WebhookDispatcher.runOnce).
 */
export const WEBHOOKS_BY_HAND = { webhooksAllowLoopback: true, webhooksPollMs: 0 } as const satisfies Partial<Config>;

/** The API rate limits off (decision 0150): the default of test servers, first or second process. */
export const NO_RATE_LIMITS = {
  OBOLUS_API_RATE_LIMIT_LIVE: 'off',
  OBOLUS_API_RATE_LIMIT_SANDBOX: 'off',
  OBOLUS_API_RATE_LIMIT_ADDRESS: 'off',
  OBOLUS_SIGN_IN_RATE_LIMIT: 'off',
} as const;

export interface TestServerOptions {
  clock?: Clock;
  /** Overrides settings, e.g. { webhooksAllowLoopback: true, webhooksPollMs: 0 } for webhook tests. */
  config?: Partial<Config>;
  /** The live connector to use (e.g. an HttpAcquirer pointed at test/support/acquirer-double.ts). */
  liveProcessor?: Processor | null;
}

/**
 * A real server on a loopback port over its own database; close() leaves nothing behind. A test
 * file whose server lives as long as a describe block uses `useTestServer` (use-test-server.ts).
 */
export async function startTestServer(engine: Engine, options: TestServerOptions = {}): Promise<TestServer> {
  const database = await createTestDatabase(engine);
  const chunks: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  // Another process may take the free port before we listen on it: then try another.
  let server: RunningServer | undefined;
  for (let attempt = 1; !server; attempt++) {
    const port = await freePort();
    const config = {
      ...loadConfig({
        PORT: String(port),
        OBOLUS_BASE_URL: `http://127.0.0.1:${port}`,
        OBOLUS_MASTER_KEY: process.env.OBOLUS_MASTER_KEY,
        OBOLUS_METRICS_PORT: '0',
        ...SUITE_DATABASE_TIMEOUTS,
        // Suites send many quick requests with one key; rate-limit tests set their own limits.
        ...NO_RATE_LIMITS,
      }),
      host: '127.0.0.1',
      databaseUrl: database.url,
      logLevel: 'trace',
      // Tests say when they want loopback webhooks, whatever a developer machine allows.
      sandboxWebhooksAllowLoopback: false,
      ...options.config,
    };
    try {
      server = await startServer(config, createLogger('trace', sink), {
        ...(database.schema ? { schema: database.schema } : {}),
        ...(options.clock ? { clock: options.clock } : {}),
        ...(options.liveProcessor !== undefined ? { liveProcessor: options.liveProcessor } : {}),
      });
    } catch (error) {
      if ((error as { code?: string }).code !== 'EADDRINUSE' || attempt >= 5) throw error;
    }
  }
  const url = server.address;
  let accounts = 0;
  return {
    engine,
    url,
    server,
    database,
    logs: () => chunks.join(''),
    async newAccount(name = `Test Shop ${++accounts}`) {
      const { services } = server;
      const created = await createAccount(services.repos.accounts, services.clock, {
        name,
        email: 'shop@example.com',
      });
      return { id: created.account.id, secretKey: created.secretKey, clientKey: created.account.clientKey };
    },
    async call<T>(method: string, path: string, { key, body, rawBody, headers = {} }: CallOptions = {}) {
      const init: RequestInit = { method, headers: { ...headers } };
      const h = init.headers as Record<string, string>;
      if (key) h.authorization = `Bearer ${key}`;
      if (rawBody !== undefined) init.body = rawBody;
      else if (body !== undefined) {
        init.body = JSON.stringify(body);
        h['content-type'] ??= 'application/json';
      }
      const response = await fetch(url + path, init);
      const text = await response.text();
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      assertResponseInContract(method, path, response.status, text);
      return { status: response.status, headers: response.headers, text, json: json as T };
    },
    async close() {
      await server.close();
      await database.drop();
    },
  };
}

export { freePort };
