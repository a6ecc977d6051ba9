import { chmodSync, closeSync, existsSync, openSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * The SQLite database, its `-wal` and `-shm` files and its backups hold client_secrets,
 * names, emails, first 6 / last 4: readable by their owner only (issue 25 item 12). SQLite
 * gives the `-wal` and `-shm` files the mode of the database file; they are set here as well
 * in case they were left by an older version.
 */
export function ownerOnly(file: string): void {
  if (!existsSync(file)) closeSync(openSync(file, 'a', 0o600));
  for (const path of [file, `${file}-wal`, `${file}-shm`]) {
    if (existsSync(path) && (statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600);
  }
}

/** A warning when the directory of `file` lets its group or everyone in, or null. */
export function dataDirectoryWarning(file: string): string | null {
  const dir = dirname(file);
  const mode = statSync(dir).mode & 0o777;
  if ((mode & 0o077) === 0) return null;
  return (
    `The data directory ${dir} is readable by others (mode ${mode.toString(8).padStart(3, '0')}): ` +
    `it holds the database and its backups. Make it private: chmod 700 ${dir}`
  );
}
