import type { Command } from 'commander';
import { loadConfig } from '../config.ts';
import { openSecretBox } from '../crypto/master-key.ts';
import { isPostgresUrl, migrateToLatest, openDatabase } from '../store/database.ts';
import { migrationTimeouts } from '../store/postgres-pool.ts';
import { resealSecrets } from '../store/repos/sealed-secrets.ts';

export function registerMigrate(program: Command): void {
  program
    .command('migrate')
    .description('Bring the database schema up to date (serve does this too on start).')
    .action(async () => {
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
