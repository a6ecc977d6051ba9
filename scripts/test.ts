// `npm test`: the whole suite on SQLite, and again on PostgreSQL when OBOLUS_TEST_DATABASE_URL is set.
import { spawnSync } from 'node:child_process';

const pg = process.env.OBOLUS_TEST_DATABASE_URL;
if (pg) {
  const safe = new URL(pg);
  safe.password = '';
  console.log(`PostgreSQL suite: ON (${safe}); every test file works in a schema of its own.`);
} else {
  console.log('PostgreSQL suite: OFF. Set OBOLUS_TEST_DATABASE_URL=postgres://user@host:5432/db to run it as well.');
}

const result = spawnSync('vitest', ['run', ...process.argv.slice(2)], { stdio: 'inherit', shell: false });
if (result.error) {
  console.error(`could not start vitest: ${result.error.message}`);
  process.exit(1);
}
process.exit(result.status ?? 1);
