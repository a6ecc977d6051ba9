// `npm test`: the whole suite on SQLite, and again on PostgreSQL when OBOLUS_TEST_DATABASE_URL is set.
import { spawnSync } from 'node:child_process';
import pg from 'pg';

const STALE_AFTER_MS = 6 * 60 * 60 * 1000;

/**
 * Test files drop their schema when they finish; a run that was killed cannot. Schemas of
 * test runs (t_<pid>_<base36 ms>_…) older than six hours are dropped before a new run.
 */
async function dropStaleTestSchemas(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string }>(
      String.raw`select schema_name as name from information_schema.schemata where schema_name ~ '^t_\d+_[0-9a-z]+_[0-9a-z]+$'`,
    );
    const stale = rows.filter((r) => Date.now() - Number.parseInt(r.name.split('_')[2] ?? '', 36) > STALE_AFTER_MS);
    for (const { name } of stale) await client.query(`drop schema if exists "${name}" cascade`);
    if (stale.length > 0) console.log(`PostgreSQL suite: dropped ${stale.length} schema(s) left by interrupted runs.`);
  } finally {
    await client.end();
  }
}

const databaseUrl = process.env.OBOLUS_TEST_DATABASE_URL;
if (databaseUrl) {
  const safe = new URL(databaseUrl);
  safe.password = '';
  console.log(`PostgreSQL suite: ON (${safe}); every test file works in a schema of its own.`);
  await dropStaleTestSchemas(databaseUrl);
} else {
  console.log('PostgreSQL suite: OFF. Set OBOLUS_TEST_DATABASE_URL=postgres://user@host:5432/db to run it as well.');
}

const result = spawnSync('vitest', ['run', ...process.argv.slice(2)], { stdio: 'inherit', shell: false });
if (result.error) {
  console.error(`could not start vitest: ${result.error.message}`);
  process.exit(1);
}
process.exit(result.status ?? 1);
