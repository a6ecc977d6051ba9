import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join, resolve } from 'node:path';
import { type Browser, type BrowserContext, chromium } from 'playwright-core';
import { onTestFinished } from 'vitest';
import type { Config } from '../../src/config.ts';
import { createAccount } from '../../src/domain/accounts.ts';
import type { Engine } from '../../src/store/database.ts';
import { lateBound, useStarted } from './hooks.ts';
import { freePort, startTestServer, type TestAccount, type TestServer } from './server.ts';
import { useAccount } from './use-test-server.ts';

/** Debian's chromium, headless, with nothing that reaches beyond loopback. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface TestBrowser {
  browser: Browser;
  /**
   * A fresh context (cookies, storage). One opened in a test closes when the test ends; one
   * opened in a hook lives until the browser closes.
   */
  context(options?: { width?: number; dark?: boolean }): Promise<BrowserContext>;
  close(): Promise<void>;
}

/** Playwright gives every launch a fresh temporary user-data-dir (and removes it on close). */
export async function launchBrowser(): Promise<TestBrowser> {
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  const contexts = new Set<BrowserContext>();
  return {
    browser,
    async context({ width = 800, dark = false } = {}) {
      const context = await browser.newContext({
        viewport: { width, height: 900 },
        colorScheme: dark ? 'dark' : 'light',
      });
      contexts.add(context);
      // A page left open keeps rendering, polling and running its timers until the file ends:
      // on a 2-core machine that was CPU the next tests waited for (decision 0189).
      try {
        onTestFinished(async () => {
          contexts.delete(context);
          await context.close().catch(() => undefined);
        });
      } catch {
        // Opened in a beforeAll: the describe's tests share it; close() ends it.
      }
      return context;
    },
    async close() {
      await Promise.all([...contexts].map((c) => c.close().catch(() => undefined)));
      await browser.close();
    },
  };
}

/**
 * An Obolus server whose configured base URL is its real loopback address (3-D Secure links use
 * it); `config` overrides other settings.
 */
export async function startPublicTestServer(engine: Engine, config: Partial<Config> = {}): Promise<TestServer> {
  const port = await freePort();
  return startTestServer(engine, { config: { ...config, port, baseUrl: `http://127.0.0.1:${port}` } });
}

export async function accountWithOrigins(t: TestServer, name: string, origins: string[]): Promise<TestAccount> {
  const { services } = t.server;
  const created = await createAccount(services.repos.accounts, services.clock, {
    name,
    email: 'shop@example.com',
    allowedOrigins: origins,
  });
  return { id: created.account.id, secretKey: created.secretKey, clientKey: created.account.clientKey };
}

/**
 * The merchant's side: a second HTTP listener on loopback serving whatever pages a test
 * puts there. Reached as http://localhost:<port> it is another origin than Obolus on
 * http://127.0.0.1:<obolus port>; reached as http://127.0.0.1:<port> it is a third one.
 */
export interface HostServer {
  port: number;
  /** http://localhost:<port> */
  origin: string;
  /** http://127.0.0.1:<port>: a foreign origin to the host page and to Obolus. */
  foreignOrigin: string;
  page(path: string, html: string): void;
  close(): Promise<void>;
}

export async function startHostServer(): Promise<HostServer> {
  const pages = new Map<string, string>();
  const server: Server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://x').pathname;
    const html = pages.get(path);
    response.writeHead(html === undefined ? 404 : 200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(html ?? 'not found');
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  return {
    port,
    origin: `http://localhost:${port}`,
    foreignOrigin: `http://127.0.0.1:${port}`,
    page: (path, html) => pages.set(path, html),
    close: () => new Promise((done) => server.close(() => done())),
  };
}

export const ARTIFACTS = resolve(import.meta.dirname, '../../../../test-artifacts/widget');
export function artifactPath(name: string): string {
  mkdirSync(ARTIFACTS, { recursive: true });
  return join(ARTIFACTS, name);
}

/** What a browser check runs against: `obolus` (a server, or a live setup around one), the host pages, chromium. */
export interface BrowserSetup<S> {
  obolus: S;
  host: HostServer;
  browser: TestBrowser;
}

/**
 * For a describe block of browser checks (decision 0290): what `start` makes (an Obolus server,
 * or a live setup around one), a host-page server (unless `host: false`) and chromium, started
 * at once before its tests and closed after them. Each member stands for the running one
 * (lateBound), like useTestServer's `t`; `host` throws when used with `host: false`.
 */
export function useBrowserWith<S extends { close(): Promise<unknown> }>(
  start: () => Promise<S>,
  options: { host?: false } = {},
): BrowserSetup<S> {
  const all = useStarted(
    'useBrowserWith: the server and the browser',
    async (): Promise<Partial<BrowserSetup<S>>> => {
      const [obolus, host, browser] = await Promise.all([
        start(),
        options.host === false ? undefined : startHostServer(),
        launchBrowser(),
      ]);
      return { obolus, ...(host ? { host } : {}), browser };
    },
    async ({ obolus, host, browser }) => {
      await browser?.close();
      await host?.close();
      await obolus?.close();
    },
  );
  const member = <K extends keyof BrowserSetup<S>>(key: K) =>
    lateBound(() => {
      const started = all[key];
      if (!started) throw new Error(`useBrowserWith: no ${key} was asked for`);
      return started as NonNullable<BrowserSetup<S>[K]>;
    });
  return { obolus: member('obolus'), host: member('host'), browser: member('browser') };
}

/** `useBrowserWith` an Obolus test server (by default startPublicTestServer), and its account with `withAccount`. */
export function useBrowserChecks(
  engine: Engine,
  options: { server?: () => Promise<TestServer>; host?: false; withAccount?: true | string } = {},
): BrowserSetup<TestServer> & { shop: TestAccount } {
  const setup = useBrowserWith(options.server ?? (() => startPublicTestServer(engine)), options);
  return { ...setup, shop: useAccount(setup.obolus, options.withAccount) };
}
