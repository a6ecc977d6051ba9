import { type ChildProcess, spawn } from 'node:child_process';
import { killOnExit } from './children.ts';
import { OBOLUS_BIN } from './cli.ts';
import { useStarted } from './hooks.ts';
import { freePort, NO_RATE_LIMITS, type TestServer } from './server.ts';

export interface SecondProcess {
  url: string;
  child: ChildProcess;
  /** Everything the process wrote so far. */
  output(): string;
  stop(): Promise<void>;
  /** SIGKILL: no goodbye, as when the machine loses the process. */
  kill(): Promise<void>;
}

/** `args` are added to `serve` (e.g. --workers 2), `env` to its environment. */
export interface SecondProcessOptions {
  args?: string[];
  env?: Record<string, string>;
}

/** The database URL a separate process needs to reach the same data as `t`. */
function databaseUrlOf(t: TestServer): string {
  if (!t.database.schema) return t.database.url;
  const url = new URL(t.database.url);
  url.searchParams.set('options', `-c search_path=${t.database.schema}`);
  return url.toString();
}

/** Another `obolus serve` process over the same database as `t`: a second node of a cluster. */
export function startSecondProcess(t: TestServer, options: SecondProcessOptions = {}): Promise<SecondProcess> {
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
 * For a describe block, after `useTestServer` (decision 0290): another `obolus serve` over the
 * database of `t`, started once `t` runs and stopped before `t` closes. `options` as they are,
 * or made when the process starts (a function, e.g. for a port taken then).
 */
export function useSecondProcess(
  t: TestServer,
  options: SecondProcessOptions | (() => SecondProcessOptions | Promise<SecondProcessOptions>) = {},
  /** How long it may take to be ready, if longer than the suite's hookTimeout (a cluster of workers). */
  startTimeoutMs?: number,
): SecondProcess {
  return useStarted(
    'useSecondProcess: the process',
    async () => startSecondProcess(t, typeof options === 'function' ? await options() : options),
    (other) => other.stop(),
    startTimeoutMs,
  );
}
