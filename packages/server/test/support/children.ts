import type { ChildProcess } from 'node:child_process';

/** Every child process a test started that has not exited yet. */
const running = new Set<ChildProcess>();

/**
 * Registers a child a test started: one still running when its test file ends (a failed
 * assertion before its stop, a hook that timed out) is killed by `killLeftChildren`, which the
 * suite's setup file runs after every file, and by the test process's own exit.
 */
export function killOnExit(child: ChildProcess): void {
  running.add(child);
  child.once('exit', () => running.delete(child));
}

/**
 * SIGKILLs every registered child still running; answers how many of them no test had told to
 * stop (one sent SIGTERM may simply not have exited yet).
 */
export function killLeftChildren(): number {
  const left = [...running].filter((child) => child.exitCode === null && child.signalCode === null);
  const forgotten = left.filter((child) => !child.killed).length;
  for (const child of left) child.kill('SIGKILL');
  running.clear();
  return forgotten;
}

process.once('exit', killLeftChildren);
