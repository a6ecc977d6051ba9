import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { AccountId } from '../ids.ts';
import { ownerOnly } from '../store/file-modes.ts';

// better-sqlite3, the configuration and the migrations load when a command runs, never for `--help` (decision 0260).
const sqlite = async () => (await import('better-sqlite3')).default;

const ON_POSTGRES =
  'obolus backup and restore copy the embedded SQLite database; on PostgreSQL use its own tools: pg_dump -Fc / pg_restore, or continuous archiving (see docs/operations.md).';

/** The path of the SQLite database of this configuration; refused on PostgreSQL. */
async function sqlitePath(): Promise<string> {
  const [{ loadConfig }, { isPostgresUrl }] = await Promise.all([
    import('../config.ts'),
    import('../store/database.ts'),
  ]);
  const { databaseUrl } = loadConfig();
  if (isPostgresUrl(databaseUrl)) throw new Error(ON_POSTGRES);
  return databaseUrl;
}

/** Why `file` is not a backup this version can restore, or null when it is one. */
export async function backupProblem(file: string): Promise<string | null> {
  if (!existsSync(file)) return `${file} does not exist`;
  const [Sqlite, { migrationProvider }] = await Promise.all([sqlite(), import('../store/migrations/index.ts')]);
  let db: import('better-sqlite3').Database | undefined;
  try {
    db = new Sqlite(file, { readonly: true, fileMustExist: true });
    const integrity = db.pragma('integrity_check', { simple: true });
    if (integrity !== 'ok') return `${file} is damaged: ${String(integrity)}`;
    const table = db.prepare("select name from sqlite_master where type = 'table' and name = 'kysely_migration'").get();
    if (!table) return `${file} is not an Obolus database (no migration table)`;
    const applied = (db.prepare('select name from kysely_migration').all() as { name: string }[]).map((r) => r.name);
    const known = new Set(Object.keys(await migrationProvider.getMigrations()));
    const unknown = applied.filter((name) => !known.has(name));
    if (unknown.length > 0)
      return `${file} comes from a newer Obolus (migration ${unknown[0]}): upgrade before restoring it`;
    return null;
  } catch (error) {
    return `${file} is not a SQLite database: ${(error as Error).message}`;
  } finally {
    db?.close();
  }
}

export function registerBackupCommands(program: Command): void {
  program
    .command('backup <file>')
    .description('Copy the SQLite database to <file> while the service runs (a consistent snapshot); checks the copy.')
    .action(async (file: string) => {
      const Sqlite = await sqlite();
      const source = new Sqlite(await sqlitePath(), { readonly: true, fileMustExist: true });
      try {
        // SQLite's online backup API: a copy of one moment, taken while writers carry on.
        ownerOnly(file);
        const { totalPages } = await source.backup(file);
        ownerOnly(file);
        const problem = await backupProblem(file);
        if (problem) throw new Error(`the backup failed its check: ${problem}`);
        console.log(
          `Backed up ${totalPages} pages to ${file}. The master key file is not in it: keep a copy of it apart.`,
        );
      } finally {
        source.close();
      }
    });

  program
    .command('restore <file>')
    .description('Check a backup made by `obolus backup` and copy it over the database (stop the service first).')
    .action(async (file: string) => {
      const [Sqlite, { otherHolders }] = await Promise.all([sqlite(), import('../store/database-holders.ts')]);
      const target = await sqlitePath();
      const holders = otherHolders(resolve(target));
      if (holders.length > 0) {
        throw new Error(
          `not restored: ${target} is in use by process ${holders.join(', ')}. Stop the service (and any obolus worker) first.`,
        );
      }
      const problem = await backupProblem(file);
      if (problem) throw new Error(`not restored: ${problem}`);
      const backupTime = statSync(file).mtimeMs;
      const rolledSince = existsSync(target)
        ? changedSince(new Sqlite(target, { readonly: true, fileMustExist: true }), backupTime)
        : [];
      const backup = new Sqlite(file, { readonly: true, fileMustExist: true });
      try {
        ownerOnly(target);
        const { totalPages } = await backup.backup(target);
        ownerOnly(target);
        console.log(`Restored ${totalPages} pages from ${file} to ${target}.`);
      } finally {
        backup.close();
      }
      // Sessions of the backup's time would sign in again: every one of them ends.
      const restored = new Sqlite(target);
      try {
        const ended = restored.prepare('delete from dashboard_sessions').run().changes;
        console.log(
          `Ended ${ended} dashboard session${ended === 1 ? '' : 's'} restored with it: merchants sign in again.`,
        );
      } finally {
        restored.close();
      }
      if (rolledSince.length > 0) {
        console.log('Rolled or changed after this backup was taken, so back as they were before: roll them again.');
        for (const line of rolledSince) console.log(`  ${line}`);
      }
    });
}

/** Keys, secrets and endpoints changed in `target` after `since`, from its audit trail, one line each. */
function changedSince(db: import('better-sqlite3').Database, since: number): string[] {
  try {
    const table = db.prepare("select name from sqlite_master where type = 'table' and name = 'audit_events'").get();
    if (!table) return [];
    const rows = db
      .prepare(
        `select account_id, action, detail, created_at from audit_events
         where created_at > ? and action in ('secret_key.rolled', 'webhook_secret.rolled', 'webhook_endpoint.created', 'webhook_endpoint.deleted', 'master_key.rotated', 'password.set')
         order by created_at`,
      )
      .all(since) as { account_id: AccountId | null; action: string; detail: string | null; created_at: number }[];
    return rows.map(
      (r) =>
        `${new Date(Number(r.created_at)).toISOString()}  ${r.action}  ${r.account_id ?? '(all accounts)'}${r.detail ? `  ${r.detail}` : ''}`,
    );
  } finally {
    db.close();
  }
}
