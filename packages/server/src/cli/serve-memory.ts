/**
 * The memory settings `obolus serve` runs with (decision 0264). Node sizes V8's heap from the
 * machine's memory, not from what the service needs: on a 24 GB host the main thread's young
 * generation is 2 x 64 MB and the old generation may reach about 250 MB of garbage before its
 * first full collection, and glibc gives each thread that allocates an arena of its own. After
 * the bench's bursts `obolus serve` kept 450–550 MB resident while its live heap was 40–60 MB.
 * These can only be set when a process starts, so `serve` starts itself again in place
 * (`process.execve`: the same process id, nothing else running yet) with them added.
 */

/** V8's semi-space (half the young generation), MB: Node's default before it scaled with the machine. */
export const SEMI_SPACE_MB = 16;
/** The old generation's ceiling, MB: 20 times the live heap measured under the bench; never above V8's own. */
export const OLD_SPACE_MB = 1024;
/** glibc malloc arenas for the process's threads (main, SQLite writer, card decryption, libuv, V8's). */
export const MALLOC_ARENAS = '2';

export interface ProcessStart {
  /** process.execArgv */
  execArgv: readonly string[];
  /** process.env */
  env: Readonly<Record<string, string | undefined>>;
  /** V8's heap limit as Node set it, MB (v8.getHeapStatistics().heap_size_limit). */
  heapLimitMb: number;
  platform: NodeJS.Platform;
}

/** What to add to the node command line and the environment; null when nothing is (already started so). */
export interface MemorySettings {
  flags: string[];
  env: Record<string, string>;
}

/** A V8 flag given on the command line or in NODE_OPTIONS, spelt with dashes or underscores. */
function given(start: ProcessStart, flag: string): boolean {
  const words = [...start.execArgv, ...(start.env.NODE_OPTIONS ?? '').split(/\s+/)];
  return words.some((word) => word.replaceAll('_', '-').split('=')[0] === flag);
}

/**
 * The settings `serve` adds to how it was started: each only where the operator set none of
 * their own (a flag on the command line or in NODE_OPTIONS, MALLOC_ARENA_MAX in the
 * environment), the old generation's ceiling only where it lowers V8's, and none where a
 * process cannot start itself again in place (Windows).
 */
export function memorySettings(start: ProcessStart): MemorySettings | null {
  if (start.platform === 'win32') return null;
  const flags: string[] = [];
  if (!given(start, '--max-semi-space-size')) flags.push(`--max-semi-space-size=${SEMI_SPACE_MB}`);
  if (!given(start, '--max-old-space-size') && start.heapLimitMb > OLD_SPACE_MB) {
    flags.push(`--max-old-space-size=${OLD_SPACE_MB}`);
  }
  const env: Record<string, string> = {};
  if (start.platform === 'linux' && start.env.MALLOC_ARENA_MAX === undefined) env.MALLOC_ARENA_MAX = MALLOC_ARENAS;
  return flags.length === 0 && Object.keys(env).length === 0 ? null : { flags, env };
}

/**
 * Starts this process again with the memory settings when some are missing; returns only when
 * none are (then the caller carries on as it is).
 */
export async function startWithMemorySettings(): Promise<void> {
  if (typeof process.execve !== 'function') return;
  const { getHeapStatistics } = await import('node:v8');
  const settings = memorySettings({
    execArgv: process.execArgv,
    env: process.env,
    heapLimitMb: getHeapStatistics().heap_size_limit / 1024 / 1024,
    platform: process.platform,
  });
  if (!settings) return;
  try {
    process.execve(
      process.execPath,
      [process.execPath, ...settings.flags, ...process.execArgv, ...process.argv.slice(1)],
      { ...process.env, ...settings.env },
    );
  } catch {
    // A platform without it (IBM i) or an execve that failed: this process serves, with Node's defaults.
  }
}
