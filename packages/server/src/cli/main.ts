import { Command, CommanderError } from 'commander';
import { registerAccountCommands } from './accounts.ts';
import { registerAuditCommands } from './audit.ts';
import { registerBackupCommands } from './backup.ts';
import { registerDevCommands } from './dev.ts';
import { registerKeyCommands } from './keys.ts';
import { registerListen } from './listen.ts';
import { registerMigrate } from './migrate.ts';
import { registerOriginCommands } from './origins.ts';
import { registerServe } from './serve.ts';
import { registerVerifyConnector } from './verify-connector.ts';
import { registerWorker } from './worker.ts';

/*
 * What this file and the register… functions import at the top is all that `--help` and a usage
 * error load: commander and the commands' definitions. A command's own modules (the server, the
 * store, the domain) are imported by its action when it runs (decision 0260).
 */

/** Exit codes: 0 done, 1 failed, 2 wrong usage (unknown command, option or argument). */
export const EXIT_USAGE = 2;

export function buildProgram(): Command {
  const program = new Command('obolus')
    .description('Obolus: a self-hostable card-payment service.')
    .version('0.1.0')
    .showSuggestionAfterError(true)
    .exitOverride();
  registerServe(program);
  registerMigrate(program);
  registerAccountCommands(program);
  registerAuditCommands(program);
  registerKeyCommands(program);
  registerOriginCommands(program);
  registerWorker(program);
  registerBackupCommands(program);
  registerListen(program);
  registerDevCommands(program);
  registerVerifyConnector(program);
  addVerbose(program);
  return program;
}

/** Commands that work without a database of their own (the API, a double, an acquirer's sandbox). */
const WITHOUT_DATABASE = new Set(['listen', 'dev', 'verify-connector']);

/**
 * `--verbose` on every command that uses the database: it prints which one (an absolute SQLite
 * path, or the URL without its password) on standard error, before anything else, so that
 * `--json` output stays one object.
 */
function addVerbose(program: Command): void {
  const leaves = (command: Command): Command[] =>
    command.commands.length === 0 ? [command] : command.commands.flatMap(leaves);
  for (const command of program.commands.filter((c) => !WITHOUT_DATABASE.has(c.name())).flatMap(leaves)) {
    command.option('--verbose', 'print the database this command uses');
  }
  program.hook('preAction', async (_program, action) => {
    if (!action.opts().verbose) return;
    const [{ loadConfig }, { databaseLabel }] = await Promise.all([
      import('../config.ts'),
      import('./database-check.ts'),
    ]);
    console.error(`database: ${databaseLabel(loadConfig().databaseUrl)}`);
  });
}

export async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
  program.commands.forEach(function override(command: Command) {
    command.exitOverride();
    command.commands.forEach(override);
  });
  try {
    await program.parseAsync(argv);
  } catch (error) {
    process.exitCode = await exitCodeFor(error);
  }
}

async function exitCodeFor(error: unknown): Promise<number> {
  if (error instanceof CommanderError) {
    // Commander has printed its one line (or the help) already.
    return error.exitCode === 0 ? 0 : EXIT_USAGE;
  }
  // Loaded already when a command threw one: the import costs nothing then.
  const { ApiError } = await import('../domain/errors.ts');
  if (error instanceof ApiError) {
    console.error(`error: ${error.message}`);
    return error.code === 'internal_error' ? 1 : EXIT_USAGE;
  }
  console.error(`error: ${error instanceof Error ? error.message : String(error)}`);
  return 1;
}
