import { Command, CommanderError } from 'commander';
import { ApiError } from '../domain/errors.ts';
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
  return program;
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
    process.exitCode = exitCodeFor(error);
  }
}

function exitCodeFor(error: unknown): number {
  if (error instanceof CommanderError) {
    // Commander has printed its one line (or the help) already.
    return error.exitCode === 0 ? 0 : EXIT_USAGE;
  }
  if (error instanceof ApiError) {
    console.error(`error: ${error.message}`);
    return error.code === 'internal_error' ? 1 : EXIT_USAGE;
  }
  console.error(`error: ${error instanceof Error ? error.message : String(error)}`);
  return 1;
}
