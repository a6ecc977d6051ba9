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
    const parsed = lines.map((line) => JSON.parse(line));
    expect(parsed[2999]).toMatchObject({ i: 2999, msg: 'line', shop: 'Café Ünïcode ✓ 日本' });
    expect(parsed.every((line, i) => i === 3000 || line.shop === 'Café Ünïcode ✓ 日本')).toBe(true);
    expect(parsed[3000]).toMatchObject({ msg: 'last line', service: 'obolus' });
  });

  it('stamps every line with its own ISO time, in order', () => {
    const run = spawnSync(process.execPath, [SCRIPT, '3000'], { encoding: 'utf8' });
    const times = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line).time as string);
    expect(times.every((time) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(time))).toBe(true);
    expect(times.every((time, i) => i === 0 || time >= (times[i - 1] as string))).toBe(true);
    const written = Date.parse(times.at(-1) as string);
    expect(Math.abs(Date.now() - written)).toBeLessThan(60_000);
  });
});
