import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SCRIPT = fileURLToPath(new URL('./fixtures/log-then-exit.ts', import.meta.url));

describe('the logger', () => {
  it('batches lines yet loses none when the process exits at once', () => {
    const run = spawnSync(process.execPath, [SCRIPT, '3000'], { encoding: 'utf8' });
    expect(run.status).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines).toHaveLength(3001);
    expect(JSON.parse(lines[2999] as string)).toMatchObject({ i: 2999, msg: 'line' });
    expect(JSON.parse(lines[3000] as string)).toMatchObject({ msg: 'last line', service: 'obolus' });
  });
});
