import { chmodSync, existsSync, mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import Sqlite from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { dataDirectoryWarning } from '../src/store/file-modes.ts';
import { reportFigure } from './support/battery.ts';
import { runCli } from './support/cli.ts';
import { merchant, signInHttp } from './support/dashboard.ts';
import { PG_URL } from './support/engines.ts';
import { useTestServer } from './support/use-test-server.ts';

/** Five `obolus` starts in one test: about 4 s each on a loaded 2-core CI machine, where 30 s was close. */
const CLI_TEST_TIMEOUT_MS = 90_000;

const intentsIn = (file: string) => {
  const db = new Sqlite(file, { readonly: true });
  try {
    return (db.prepare('select count(*) as n from payment_intents').get() as { n: number }).n;
  } finally {
    db.close();
  }
};

describe('obolus backup and restore (SQLite)', () => {
  const { t, shop } = useTestServer('sqlite', { withAccount: true });

  const dir = () => dirname(t.database.url);
  const create = () =>
    t.call('POST', '/api/v1/payment-intents', {
      key: shop.secretKey,
      body: { amount: 500, currency: 'USD', mode: 'sandbox' },
    });

  it('takes a consistent copy under write load, and restores it into a database a server reads', async () => {
    const file = join(dir(), 'backup.db');
    let writing = true;
    let written = 0;
    const load = (async () => {
      while (writing) {
        expect((await create()).status).toBe(200);
        written++;
      }
    })();
    while (written < 20) await new Promise((resolve) => setTimeout(resolve, 20));
    const before = written;
    const backup = await runCli(['backup', file], { OBOLUS_DATABASE_URL: t.database.url });
    const after = written;
    writing = false;
    await load;
    expect(backup.stderr).toBe('');
    expect(backup.code).toBe(0);
    expect(backup.stdout).toContain('The master key file is not in it');
    const copied = intentsIn(file);
    // A snapshot of one moment during the command: every intent acknowledged before it, none after.
    expect(copied).toBeGreaterThanOrEqual(before);
    expect(copied).toBeLessThanOrEqual(after + 1);

    const restoredTo = join(dir(), 'restored.db');
    const restore = await runCli(['restore', file], { OBOLUS_DATABASE_URL: restoredTo });
    expect(restore.stderr).toBe('');
    expect(restore.code).toBe(0);
    expect(intentsIn(restoredTo)).toBe(copied);
    const migrate = await runCli(['migrate'], { OBOLUS_DATABASE_URL: restoredTo });
    expect(migrate.stderr).toContain('Already up to date.');
    reportFigure(
      'backup under load',
      `${copied} intents in the copy (${before} acknowledged before, ${after} by its end of ${written} written)`,
    );
  });

  it('creates the database, its -wal and -shm, backups and restores readable by their owner only (0600)', async () => {
    expect((await create()).status).toBe(200);
    const modeOf = (file: string) => statSync(file).mode & 0o777;
    for (const file of [t.database.url, `${t.database.url}-wal`, `${t.database.url}-shm`]) {
      expect(modeOf(file).toString(8), file).toBe('600');
    }
    const file = join(dir(), 'private-backup.db');
    expect((await runCli(['backup', file], { OBOLUS_DATABASE_URL: t.database.url })).code).toBe(0);
    expect(modeOf(file).toString(8)).toBe('600');
    const restoredTo = join(dir(), 'private-restored.db');
    writeFileSync(restoredTo, '', { mode: 0o644 });
    chmodSync(restoredTo, 0o644);
    expect((await runCli(['restore', file], { OBOLUS_DATABASE_URL: restoredTo })).code).toBe(0);
    expect(modeOf(restoredTo).toString(8)).toBe('600');
  });

  it(
    'restore refuses a database in use, ends restored sessions, and names what was rolled after the backup (issue 25 item 11)',
    async () => {
      const env = { OBOLUS_DATABASE_URL: t.database.url };
      const shopWithPassword = await merchant(t);
      await signInHttp(t, shopWithPassword.email);
      const file = join(dir(), 'before-roll.db');
      expect((await runCli(['backup', file], env)).code).toBe(0);
      utimesSync(file, new Date(Date.now() - 2000), new Date(Date.now() - 2000));
      expect((await runCli(['keys', 'roll', shopWithPassword.id], env)).code).toBe(0);
      // The running server holds its database: restoring over it is refused, nothing written.
      const inUse = await runCli(['restore', file], env);
      expect(inUse.code).toBe(1);
      expect(inUse.stderr).toContain(`in use by process ${process.pid}`);
      // A copy of today's database (with the roll and a session), then the older backup over it.
      const today = join(dir(), 'today.db');
      expect((await runCli(['backup', today], env)).code).toBe(0);
      const restore = await runCli(['restore', file], { OBOLUS_DATABASE_URL: today });
      expect(restore.stderr).toBe('');
      expect(restore.code).toBe(0);
      expect(restore.stdout).toMatch(/Ended [1-9]\d* dashboard sessions? restored with it/);
      expect(restore.stdout).toContain('roll them again');
      expect(restore.stdout).toMatch(new RegExp(`secret_key\\.rolled  ${shopWithPassword.id}`));
      const db = new Sqlite(today, { readonly: true });
      try {
        expect((db.prepare('select count(*) as n from dashboard_sessions').get() as { n: number }).n).toBe(0);
      } finally {
        db.close();
      }
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it('warns when the data directory is readable by its group or everyone', () => {
    const open = mkdtempSync(join(tmpdir(), 'obolus-modes-'));
    try {
      chmodSync(open, 0o700);
      expect(dataDirectoryWarning(join(open, 'obolus.db'))).toBe(null);
      chmodSync(open, 0o750);
      expect(dataDirectoryWarning(join(open, 'obolus.db'))).toContain(`chmod 700 ${open}`);
      chmodSync(open, 0o705);
      expect(dataDirectoryWarning(join(open, 'obolus.db'))).toContain('mode 705');
    } finally {
      rmSync(open, { recursive: true, force: true });
    }
  });

  it(
    'restore refuses a damaged file, a file that is not Obolus, and one from a newer version, changing nothing',
    async () => {
      const target = join(dir(), 'target.db');
      const garbage = join(dir(), 'garbage.db');
      writeFileSync(garbage, 'not a database at all');
      const other = join(dir(), 'other.db');
      new Sqlite(other).exec('create table x (y)').close();
      const newer = join(dir(), 'newer.db');
      expect((await runCli(['backup', newer], { OBOLUS_DATABASE_URL: t.database.url })).code).toBe(0);
      new Sqlite(newer)
        .exec("insert into kysely_migration (name, timestamp) values ('9999_from_the_future', 'x')")
        .close();
      for (const [file, reason] of [
        [garbage, 'is not a SQLite database'],
        [other, 'is not an Obolus database'],
        [newer, 'comes from a newer Obolus (migration 9999_from_the_future)'],
        [join(dir(), 'missing.db'), 'does not exist'],
      ] as const) {
        const result = await runCli(['restore', file], { OBOLUS_DATABASE_URL: target });
        expect(result.code).toBe(1);
        expect(result.stderr).toContain(reason);
      }
      expect(existsSync(target)).toBe(false);
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it.runIf(PG_URL)('on PostgreSQL points to pg_dump and pg_restore', async () => {
    const result = await runCli(['backup', '/tmp/never.db'], { OBOLUS_DATABASE_URL: PG_URL as string });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('pg_dump');
  });
});
