import { type ChildProcess, spawn } from 'node:child_process';
import { OBOLUS_BIN } from './cli.ts';
import { freePort, type TestServer } from './server.ts';

export interface SecondProcess {
  url: string;
  child: ChildProcess;
  /** Everything the process wrote so far. */
  output(): string;
  stop(): Promise<void>;
}

/** The database URL a separate process needs to reach the same data as `t`. */
function databaseUrlOf(t: TestServer): string {
  if (!t.database.schema) return t.database.url;
  const url = new URL(t.database.url);
  url.searchParams.set('options', `-c search_path=${t.database.schema}`);
  return url.toString();
}

/** Another `obolus serve` process over the same database as `t`: a second node of a cluster. */
export async function startSecondProcess(t: TestServer, env: Record<string, string> = {}): Promise<SecondProcess> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [OBOLUS_BIN, 'serve'], {
    env: {
      ...process.env,
      OBOLUS_DATABASE_URL: databaseUrlOf(t),
      PORT: String(port),
      OBOLUS_BASE_URL: `http://127.0.0.1:${port}`,
      OBOLUS_LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (d) => (output += d));
  child.stderr?.on('data', (d) => (output += d));
  await new Promise<void>((resolve, reject) => {
    const timer = setInterval(async () => {
      try {
        if ((await fetch(`http://127.0.0.1:${port}/readyz`)).ok) {
          clearInterval(timer);
          resolve();
        }
      } catch {
        // not listening yet
      }
    }, 100);
    child.once('exit', (code) => {
      clearInterval(timer);
      reject(new Error(`second process exited with ${code}: ${output}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    child,
    output: () => output,
    stop: () =>
      new Promise((resolve) => {
        child.removeAllListeners('exit');
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
