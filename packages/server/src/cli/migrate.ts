import type { Command } from 'commander';
import { loadConfig } from '../config.ts';
import { migrateToLatest, openDatabase } from '../store/database.ts';

export function registerMigrate(program: Command): void {
  program
    .command('migrate')
    .description('Bring the database schema up to date (serve does this too on start).')
    .action(async () => {
      const database = openDatabase(loadConfig().databaseUrl);
      try {
        console.error(`Migrating ${database.engine} database at ${database.location} …`);
        const started = Date.now();
        const { applied } = await migrateToLatest(database.db, (name) =>
          console.error(`  applied ${name} (${Date.now() - started} ms)`),
        );
        console.error(applied.length ? `Done: ${applied.length} migration(s) applied.` : 'Already up to date.');
      } finally {
        await database.close();
      }
    });
}
