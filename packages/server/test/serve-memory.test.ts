import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { childrenOf } from '../../../bench/memory.ts';
import {
  MALLOC_ARENAS,
  memorySettings,
  OLD_SPACE_MB,
  type ProcessStart,
  SEMI_SPACE_MB,
} from '../src/cli/serve-memory.ts';
import { createTestDatabase, PG_URL } from './support/engines.ts';
import { startServeProcess } from './support/second-process.ts';

const LINUX_24_GB: ProcessStart = { execArgv: [], env: {}, heapLimitMb: 4144, platform: 'linux' };
const OURS = [`--max-semi-space-size=${SEMI_SPACE_MB}`, `--max-old-space-size=${OLD_SPACE_MB}`];

describe('memorySettings: what `obolus serve` adds to how it was started (decision 0264)', () => {
  it('on Linux with V8 sized for a large machine: both V8 flags and two malloc arenas', () => {
    expect(memorySettings(LINUX_24_GB)).toEqual({ flags: OURS, env: { MALLOC_ARENA_MAX: MALLOC_ARENAS } });
  });

  it("adds nothing the operator set: flags on the command line or in NODE_OPTIONS (either spelling), the environment's MALLOC_ARENA_MAX", () => {
    expect(memorySettings({ ...LINUX_24_GB, execArgv: ['--max-semi-space-size=64'] })?.flags).toEqual([OURS[1]]);
    expect(
      memorySettings({ ...LINUX_24_GB, env: { NODE_OPTIONS: '--inspect  --max_old_space_size=4096' } })?.flags,
    ).toEqual([OURS[0]]);
    expect(memorySettings({ ...LINUX_24_GB, env: { MALLOC_ARENA_MAX: '8' } })?.env).toEqual({});
    expect(
      memorySettings({
        ...LINUX_24_GB,
        execArgv: ['--max-old-space-size', '2048', '--max-semi-space-size=1'],
        env: { MALLOC_ARENA_MAX: '1' },
      }),
    ).toBeNull();
  });

  it("never raises V8's own ceiling: the old generation's is added only above it", () => {
    expect(memorySettings({ ...LINUX_24_GB, heapLimitMb: OLD_SPACE_MB })?.flags).toEqual([OURS[0]]);
    expect(memorySettings({ ...LINUX_24_GB, heapLimitMb: OLD_SPACE_MB + 1 })?.flags).toEqual(OURS);
  });

  it('asks for no second start once started with its own settings (no loop)', () => {
    const first = memorySettings(LINUX_24_GB);
    expect(first).not.toBeNull();
    const restarted: ProcessStart = {
      ...LINUX_24_GB,
      execArgv: first?.flags ?? [],
      env: first?.env ?? {},
      heapLimitMb: OLD_SPACE_MB + 48,
    };
    expect(memorySettings(restarted)).toBeNull();
  });

  it('elsewhere: no malloc arenas off Linux (not glibc), no start in place on Windows', () => {
    expect(memorySettings({ ...LINUX_24_GB, platform: 'darwin' })).toEqual({ flags: OURS, env: {} });
    expect(memorySettings({ ...LINUX_24_GB, platform: 'win32' })).toBeNull();
  });
});

const cmdline = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
const environ = (pid: number) => readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');

// Each test starts `obolus serve` (twice over, the second start in place): 60 s on a loaded machine.
describe.skipIf(process.platform !== 'linux')('obolus serve runs with them (Linux: read from /proc)', () => {
  it('one process: the process started is the one serving, with the flags and MALLOC_ARENA_MAX', async () => {
    const db = await createTestDatabase('sqlite');
    const serve = await startServeProcess(db.url);
    try {
      const pid = serve.child.pid as number;
      expect(cmdline(pid)).toEqual(expect.arrayContaining([...OURS, 'serve']));
      expect(environ(pid)).toContain(`MALLOC_ARENA_MAX=${MALLOC_ARENAS}`);
    } finally {
      await serve.stop();
      await db.drop();
    }
  }, 60_000);

  it("the operator's NODE_OPTIONS and MALLOC_ARENA_MAX are kept, and not repeated", async () => {
    const db = await createTestDatabase('sqlite');
    const serve = await startServeProcess(db.url, {
      env: { NODE_OPTIONS: '--max-semi-space-size=8', MALLOC_ARENA_MAX: '4' },
    });
    try {
      const pid = serve.child.pid as number;
      const args = cmdline(pid);
      expect(args).toContain(OURS[1]);
      expect(args.some((arg) => arg.startsWith('--max-semi-space-size'))).toBe(false);
      expect(environ(pid)).toContain('NODE_OPTIONS=--max-semi-space-size=8');
      expect(environ(pid)).toContain('MALLOC_ARENA_MAX=4');
    } finally {
      await serve.stop();
      await db.drop();
    }
  }, 60_000);

  it.skipIf(!PG_URL)(
    'serve --workers 2: each worker process has them too',
    async () => {
      const db = await createTestDatabase('postgres');
      const url = new URL(db.url);
      url.searchParams.set('options', `-c search_path=${db.schema}`);
      const serve = await startServeProcess(url.toString(), {
        args: ['--workers', '2'],
        env: { OBOLUS_MASTER_KEY: randomBytes(32).toString('base64'), OBOLUS_DATABASE_POOL_SIZE: '2' },
      });
      try {
        const primary = serve.child.pid as number;
        const workers = childrenOf(primary).filter((pid) => cmdline(pid).includes('serve'));
        expect(workers).toHaveLength(2);
        for (const pid of [primary, ...workers]) {
          expect(cmdline(pid)).toEqual(expect.arrayContaining(OURS));
          expect(environ(pid)).toContain(`MALLOC_ARENA_MAX=${MALLOC_ARENAS}`);
        }
      } finally {
        await serve.stop();
        await db.drop();
      }
    },
    60_000,
  );
});
