import { type ChildProcess, spawn } from 'node:child_process';
import { afterAll, beforeAll } from 'vitest';
import type { Engine } from '../../src/store/database.ts';
import { killOnExit } from './children.ts';
import { OBOLUS_BIN } from './cli.ts';
import { freePort, NO_RATE_LIMITS, startTestServer, type TestServer } from './server.ts';

export interface SecondProcess {
  url: string;
  child: ChildProcess;
  /** Everything the process wrote so far. */
  output(): string;
  stop(): Promise<void>;
  /** SIGKILL: no goodbye, as when the machine loses the process. */
  kill(): Promise<void>;
}

/** The database URL a separate process needs to reach the same data as `t`. */
function databaseUrlOf(t: TestServer): string {
  if (!t.database.schema) return t.database.url;
  const url = new URL(t.database.url);
  url.searchParams.set('options', `-c search_path=${t.database.schema}`);
  return url.toString();
}

/**
 * Another `obolus serve` process over the same database as `t`: a second node of a cluster.
 * `args` are added to `serve` (e.g. --workers 2), `env` to its environment.
 */
export function startSecondProcess(
  t: TestServer,
  options: { args?: string[]; env?: Record<string, string> } = {},
): Promise<SecondProcess> {
  return startServeProcess(databaseUrlOf(t), options);
}

/**
 * `obolus serve` over `databaseUrl` on a free loopback port, ready once its /readyz answers 200.
 * `prefix` runs it under another command (e.g. `ip netns exec <name>`), at `host`.
 */
export async function startServeProcess(
  databaseUrl: string,
  options: { args?: string[]; env?: Record<string, string>; prefix?: string[]; host?: string; port?: number } = {},
): Promise<SecondProcess> {
  const port = options.port ?? (await freePort());
  const host = options.host ?? '127.0.0.1';
  const command = [...(options.prefix ?? []), process.execPath, OBOLUS_BIN, 'serve', ...(options.args ?? [])];
  const child: ChildProcess = spawn(command[0] as string, command.slice(1), {
    env: {
      ...process.env,
      OBOLUS_DATABASE_URL: databaseUrl,
      HOST: host,
      PORT: String(port),
      OBOLUS_BASE_URL: `http://${host}:${port}`,
      OBOLUS_LOG_LEVEL: 'warn',
      ...NO_RATE_LIMITS,
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  killOnExit(child);
  let output = '';
  child.stdout?.on('data', (d) => (output += d));
  child.stderr?.on('data', (d) => (output += d));
  const url = `http://${host}:${port}`;
  await new Promise<void>((resolve, reject) => {
    const timer = setInterval(async () => {
      try {
        if ((await fetch(`${url}/readyz`)).ok) {
          clearInterval(timer);
          resolve();
        }
      } catch {
        // not listening yet
      }
    }, 100);
    child.once('exit', (code) => {
      clearInterval(timer);
      reject(new Error(`obolus serve exited with ${code}: ${output}`));
    });
  });
  const end = (signal: NodeJS.Signals) =>
    new Promise<void>((resolve) => {
      child.removeAllListeners('exit');
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill(signal);
    });
  return { url, child, output: () => output, stop: () => end('SIGTERM'), kill: () => end('SIGKILL') };
}

/** A child still running when its test file ends (a hook timed out, a crash) is killed then. */
export { killOnExit } from './children.ts';

/**
 * For a describe block: before its tests, a test server of `engine` and a second `obolus serve`
 * on its database, handed to `use`; both ended after them.
 */
export function withSecondProcess(engine: Engine, use: (t: TestServer, other: SecondProcess) => void): void {
  let t: TestServer | undefined;
  let other: SecondProcess | undefined;
  beforeAll(async () => {
    t = await startTestServer(engine);
    other = await startSecondProcess(t);
    use(t, other);
    // The suite's hookTimeout (vitest.config.ts): a server and a process start on a loaded machine.
  }, 60_000);
  afterAll(async () => {
    await other?.stop();
    await t?.close();
  });
}
