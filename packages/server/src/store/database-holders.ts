import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Processes that have the SQLite database open leave their pid in `<file>.holders/` while
 * they do, so `obolus restore` can refuse to overwrite a database in use (issue 25 item 11).
 * A process killed without cleaning up leaves a pid that is no longer alive: ignored.
 */
const holdersDir = (file: string) => `${file}.holders`;

/** This process's pid files, removed when it exits (one listener for all of them). */
const held = new Map<string, number>();
let listening = false;

export function holdDatabase(file: string): () => void {
  const dir = holdersDir(file);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const mine = join(dir, String(process.pid));
  writeFileSync(mine, '', { mode: 0o600 });
  held.set(mine, (held.get(mine) ?? 0) + 1);
  if (!listening) {
    listening = true;
    process.once('exit', () => {
      for (const path of held.keys()) rmSync(path, { force: true });
    });
  }
  return () => {
    const left = (held.get(mine) ?? 1) - 1;
    if (left > 0) return void held.set(mine, left);
    held.delete(mine);
    rmSync(mine, { force: true });
  };
}

/** Live processes other than this one that hold `file` open. */
export function otherHolders(file: string): number[] {
  let entries: string[];
  try {
    entries = readdirSync(holdersDir(file));
  } catch {
    return [];
  }
  return entries.map(Number).filter((pid) => Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid));
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === 'EPERM';
  }
}
