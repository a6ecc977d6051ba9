import type { Command } from 'commander';

export function registerMigrate(program: Command): void {
  program
    .command('migrate')
    .description('Bring the database schema up to date (serve does this too on start).')
    .action(async () => {
      // The store loads when the command runs, never for `--help` (decision 0260).
      const [{ loadConfig }, { openSecretBox }, { isPostgresUrl, migrateToLatest, openDatabase }, pool, sealed] =
        await Promise.all([
          import('../config.ts'),
          import('../crypto/master-key.ts'),
          import('../store/database.ts'),
          import('../store/postgres-pool.ts'),
          import('../store/repos/sealed-secrets.ts'),
        ]);
      const { migrationTimeouts } = pool;
      const { resealSecrets } = sealed;
      const config = loadConfig();
      // Refused before any change when the master key is missing or malformed.
      const engine = isPostgresUrl(config.databaseUrl) ? 'postgres' : 'sqlite';
      const secrets = openSecretBox(config.masterKey, config.databaseUrl, engine);
      const database = openDatabase(config.databaseUrl, { timeouts: migrationTimeouts(config.databaseTimeouts) });
      try {
        console.error(`Migrating ${database.engine} database at ${database.location} …`);
        const started = Date.now();
        const { applied } = await migrateToLatest(database.db, (name) =>
          console.error(`  applied ${name} (${Date.now() - started} ms)`),
        );
        await resealSecrets(database.db, secrets, true);
        console.error(applied.length ? `Done: ${applied.length} migration(s) applied.` : 'Already up to date.');
      } finally {
        await database.close();
      }
    });
}
