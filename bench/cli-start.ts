/** How long `obolus --help` and a usage error take, start to exit, as a shell runs them. */
import { spawnSync } from 'node:child_process';

export interface CliStart {
  runs: number;
  help_ms: number;
  usage_error_ms: number;
}

/** The target of issue 28. */
export const CLI_TARGET_MS = 300;

function medianMs(args: string[], runs: number): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    spawnSync(process.execPath, args, { stdio: 'ignore' });
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return Math.round(times[Math.floor(times.length / 2)] ?? 0);
}

/**
 * The median of `runs` starts of `node bin/obolus.js --help` and of a mistyped command, after
 * one not counted (it fills V8's code cache on disk). What `npx obolus` adds on top, npm's own
 * start, is not ours and not counted.
 */
export function measureCliStart(bin: string, runs: number): CliStart {
  spawnSync(process.execPath, [bin, '--help'], { stdio: 'ignore' });
  return {
    runs,
    help_ms: medianMs([bin, '--help'], runs),
    usage_error_ms: medianMs([bin, 'servr'], runs),
  };
}

export function cliLine(cli: CliStart): string {
  const worst = Math.max(cli.help_ms, cli.usage_error_ms);
  const verdict = worst <= CLI_TARGET_MS ? 'ok' : `MISSED: above ${CLI_TARGET_MS} ms`;
  return `cli: obolus --help ${cli.help_ms} ms, a usage error ${cli.usage_error_ms} ms (median of ${cli.runs}; target <= ${CLI_TARGET_MS} ms: ${verdict})`;
}
