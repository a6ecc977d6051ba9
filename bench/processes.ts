/** The processes a bench run starts (servers under test, the baseline), and their orderly end. */
import { type ChildProcess, spawn } from 'node:child_process';

const children = new Set<ChildProcess>();

/** How long a process may take to print its ready line (a first start migrates and analyses the database). */
const READY_WITHIN_MS = 180_000;

/**
 * Starts `node args…` and resolves with the first match group of `ready` in its stdout; fails
 * (and stops it) when the line has not come within READY_WITHIN_MS, rather than wait for ever.
 */
export function startProcess(args: string[], env: Record<string, string>, ready: RegExp): Promise<Started> {
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let err = '';
  child.stderr?.on('data', (d) => {
    err = (err + d).slice(-4000);
  });
  return new Promise((resolve, reject) => {
    let out = '';
    const late = setTimeout(() => {
      void stopProcess(child);
      reject(
        new Error(
          `${args.join(' ')} printed no ${ready} within ${READY_WITHIN_MS / 1000} s\n${out.slice(-2000)}${err}`,
        ),
      );
    }, READY_WITHIN_MS);
    const watch = (d: Buffer) => {
      out += d;
      const match = ready.exec(out);
      if (!match) return;
      clearTimeout(late);
      // Ready: the rest of its output (a log line per request) is read and dropped. Keeping and
      // searching it cost the bench's own process, which also drives the load, more CPU with
      // every request (and the baseline logs nothing).
      child.stdout?.off('data', watch);
      child.stdout?.resume();
      out = '';
      resolve({ value: match[1] as string, pid: child.pid as number, stop: () => stopProcess(child) });
    };
    child.stdout?.on('data', watch);
    child.once('exit', (code) => {
      clearTimeout(late);
      children.delete(child);
      reject(new Error(`${args.join(' ')} exited with ${code}\n${err}`));
    });
  });
}

export interface Started {
  value: string;
  pid: number;
  /** SIGTERM, then waits for the exit (a CPU profile is written on the way out). */
  stop(): Promise<void>;
}

function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.once('exit', () => {
      clearTimeout(force);
      children.delete(child);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** Ends whatever is still running (an interrupted run). */
export async function stopAll(): Promise<void> {
  await Promise.all([...children].map(stopProcess));
}
