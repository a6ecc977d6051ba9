import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { killOnExit } from './children.ts';

export const OBOLUS_BIN = fileURLToPath(new URL('../../bin/obolus.js', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the real `obolus` executable with the Node that runs the tests (Node 24); `stdin` is piped in. */
export function runCli(args: string[], env: Record<string, string>, stdin?: string, cwd?: string): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [OBOLUS_BIN, ...args], {
      env: { ...process.env, ...env },
      ...(cwd ? { cwd } : {}),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    killOnExit(child);
    // Nothing to say: standard input is closed at once, as with 'ignore'.
    child.stdin.end(stdin);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
