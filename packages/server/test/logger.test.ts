import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createLogger, logRequestCompleted, type RequestCompleted } from '../src/logger.ts';

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

  it('loses none either when the process ends by itself, its event loop empty', () => {
    const run = spawnSync(process.execPath, [SCRIPT, '150', 'natural'], { encoding: 'utf8' });
    expect(run.status).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines).toHaveLength(151);
    expect(JSON.parse(lines[150] as string)).toMatchObject({ msg: 'last line' });
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

  it("writes a request's line as pino itself would, credentials in the URL redacted", () => {
    const lines: string[] = [];
    const log = createLogger('info', { write: (line: string) => void lines.push(line) }).child({ request_id: 'req_1' });
    const answers: RequestCompleted[] = [
      { method: 'GET', url: '/api/v1/payment-intents/6b03ebae363e0169eab659f9', status: 200, ms: 1 },
      { method: 'POST', url: '/x?key=sk_abc123&cs=pi_0123_secret_XYZ&q="quoted"\\é✓', status: 400, ms: 0 },
      { method: 'GET', url: '/embed/v1/challenge/chl_Token99', status: 404, ms: 1234 },
    ];
    for (const answer of answers) {
      log.info({ ...answer }, 'request completed');
      logRequestCompleted(log, 'info', answer);
    }
    logRequestCompleted(log, 'debug', answers[0] as RequestCompleted); // below the level: nothing
    expect(lines).toHaveLength(answers.length * 2);
    const withoutTime = (line: string) => line.replace(/"time":"[^"]+"/, '"time":"-"');
    for (let i = 0; i < lines.length; i += 2) {
      expect(withoutTime(lines[i + 1] as string)).toBe(withoutTime(lines[i] as string));
    }
    expect(lines.join('')).not.toMatch(/abc123|XYZ|Token99/);
    expect(JSON.parse(lines[3] as string)).toMatchObject({
      level: 30,
      request_id: 'req_1',
      service: 'obolus',
      status: 400,
    });
  });
});
