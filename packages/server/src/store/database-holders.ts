import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Processes that have the SQLite database open leave their pid in `<file>.holders/` while
 * they do, so `obolus restore` can refuse to overwrite a database in use (issue 25 item 11).
 * A process killed without cleaning up leaves a pid that is no longer alive: ignored.
 */
const holdersDir = (file: string) => `${file}.holders`;

export function holdDatabase(file: string): () => void {
  const dir = holdersDir(file);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const mine = join(dir, String(process.pid));
  writeFileSync(mine, '', { mode: 0o600 });
  const release = () => rmSync(mine, { force: true });
  process.once('exit', release);
  return () => {
    process.off('exit', release);
    release();
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
