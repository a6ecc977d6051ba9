import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { BATTERY_TIMEOUT_MS, count, MERCHANT_OPERATIONS, reportFigure } from './support/battery.ts';
import { assertResponseInContract } from './support/contract.ts';
import { ENGINES } from './support/engines.ts';
import { useSecondProcess } from './support/second-process.ts';
import { freePort, type TestServer } from './support/server.ts';
import { useTestServer } from './support/use-test-server.ts';

/** Every public operation: the merchant API from its document, and the widget's JSON endpoints. */
const OPERATIONS: { method: string; path: string }[] = [
  ...MERCHANT_OPERATIONS,
  { method: 'POST', path: '/embed/v1/intent' },
  { method: 'POST', path: '/embed/v1/confirm' },
];

const utf8 = (text: string) => new TextEncoder().encode(text);
const FIELDS = [
  'amount',
  'currency',
  'mode',
  'name',
  'url',
  'enabled_events',
  'metadata',
  'pk',
  'client_secret',
  'card',
];

/** JSON texts no schema expects: the edge cases of issue 15 and random JSON around them. */
const hostileJson = fc.oneof(
  fc.constantFrom(
    '{"amount":1e309,"currency":"USD"}',
    '{"amount":-0,"currency":"USD"}',
    '{"amount":1.0,"currency":"USD"}',
    '{"amount":9007199254740993,"currency":"USD"}',
    '{"amount":100,"amount":"x","currency":"USD"}',
    '{"__proto__":{"admin":true},"amount":100,"currency":"USD"}',
    '{"constructor":{"prototype":{"polluted":1}},"amount":100}',
    '{"name":"\\ud800","amount":100,"currency":"USD"}',
    '{"name":"a\\u0000b","amount":100,"currency":"USD","url":"http://x/\\u0000"}',
    '{"metadata":{"__proto__":"x","constructor":"y"}}',
    '{"enabled_events":[null,1,{},"*"],"url":"https://x.example"}',
    '{"card":{"number":[]},"pk":{},"client_secret":null}',
    '',
    'null',
    '[]',
    '"string"',
    '{',
    '\u0000',
  ),
  fc.integer({ min: 1, max: 20_000 }).map((depth) => '['.repeat(depth) + ']'.repeat(depth)),
  fc.integer({ min: 1, max: 5_000 }).map((depth) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`),
  fc
    .integer({ min: 1_000, max: 70_000 })
    .map((n) => JSON.stringify({ name: 'x'.repeat(n), amount: 1, currency: 'USD' })),
  fc
    .dictionary(fc.constantFrom(...FIELDS, '__proto__', 'constructor', 'prototype'), fc.jsonValue({ maxDepth: 3 }))
    .map((o) => JSON.stringify(o)),
  fc.string({ unit: 'binary', maxLength: 200 }).map((s) => JSON.stringify({ name: s, description: s, reference: s })),
);

/** Bytes that are not UTF-8 at all, inside an otherwise fine JSON object. */
const invalidUtf8 = fc.constantFrom(
  Uint8Array.from([...utf8('{"name":"'), 0xff, 0xfe, 0xc0, 0xaf, ...utf8('","amount":1}')]),
  Uint8Array.from([...utf8('{"name":"'), 0xed, 0xa0, 0x80, ...utf8('"}')]),
  Uint8Array.from([0xef, 0xbb, 0xbf, ...utf8('{"amount":1}')]),
);

const contentType = fc.constantFrom(
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=latin1',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  '*/*',
  ';;;',
  '',
);

const idPart = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom(
    '..',
    '%2e%2e%2f',
    '%00',
    '%ff',
    '%',
    `pi_${'a'.repeat(3000)}`,
    '__proto__',
    'constructor',
    '0'.repeat(24),
  ),
);

const query = fc.oneof(
  fc.constant(''),
  fc.constantFrom(
    '?limit=1e309',
    '?limit=-0',
    '?limit=1.0',
    '?limit=9007199254740993',
    '?limit=1&limit=2',
    '?starting_after=%00',
    '?created[gte]=x',
    '?__proto__[x]=1',
    '?constructor=1',
    '?status=%ff',
    '?a=%',
  ),
  fc
    .dictionary(fc.string({ maxLength: 12 }), fc.string({ unit: 'binary', maxLength: 30 }), { maxKeys: 4 })
    .map((o) => `?${new URLSearchParams(o)}`),
);

const headers = fc.record(
  {
    'idempotency-key': fc.oneof(fc.string({ maxLength: 300 }), fc.constant('x'.repeat(10_000))),
    accept: fc.constantFrom('text/html', 'application/xml', '*/*', ''),
    'x-forwarded-for': fc.constantFrom('1.2.3.4', 'garbage', '::1, ::2', ''),
  },
  { requiredKeys: [] },
);

/** An id as one path segment (fetch would resolve a `.` or `..` segment, escaped or not, to another route). */
const encodeId = (id: string) => {
  if (/^\.{1,2}$/.test(id)) return `${id}x`;
  try {
    return encodeURIComponent(id);
  } catch {
    return id.replace(/[\ud800-\udfff]/g, '%ED%A0%80'); // a lone surrogate as the raw bytes a client might send
  }
};

/** The last line the server logged at level error, for the failure message. */
const lastServerError = (t: TestServer) =>
  t
    .logs()
    .split('\n')
    .filter((line) => line.includes('"level":50'))
    .at(-1)
    ?.slice(0, 1500);

describe.each(ENGINES)('hostile input on every public endpoint (%s)', (engine) => {
  let fivexx = 0;
  const { t, shop } = useTestServer(engine, { config: { logLevel: 'warn' }, withAccount: true });

  it.each(['/api/v1/events', '/api/v1/payment-intents', '/api/v1/products', '/api/v1/webhook-endpoints'])(
    '%s?limit=1e309 is a 400 naming limit (a query number that overflows to Infinity)',
    async (path) => {
      const res = await t.call('GET', `${path}?limit=1e309`, { key: shop.secretKey });
      expect(res.status).toBe(400);
      expect(res.json.error).toMatchObject({ code: 'parameter_invalid', param: 'limit' });
    },
  );

  it.each([
    ['POST', '/api/v1/webhook-endpoints/we_x/resend/evt_x'],
    ['POST', '/api/v1/payment-intents'],
    ['POST', '/embed/v1/confirm'],
  ])('%s %s with a body 20,000 levels deep and an Idempotency-Key is a 400 body_invalid', async (method, path) => {
    const res = await t.call(method, path, {
      key: shop.secretKey,
      rawBody: '['.repeat(20_000) + ']'.repeat(20_000),
      headers: { 'content-type': 'application/json', 'idempotency-key': `deep-${path}` },
    });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'body_invalid' });
    const shallow = await t.call(method, path, {
      key: shop.secretKey,
      rawBody: `${'{"a":'.repeat(33)}1${'}'.repeat(33)}`,
      headers: { 'content-type': 'application/json' },
    });
    expect(shallow.json.error.message).toContain('nests more than 32 levels');
  });

  it(
    'answers every generated request with a documented 4xx (or a success), never a 5xx, and stays up',
    async () => {
      let sent = 0;
      const statuses = new Map<number, number>();
      const result = await fc.check(
        fc.asyncProperty(hostileRequest(shop.secretKey), async ({ path, init }) => {
          const method = init.method as string;
          const response = await fetch(t.url + path, init);
          const text = await response.text();
          sent++;
          statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
          if (response.status >= 500) fivexx++;
          expect(response.status, `${method} ${path}: ${text.slice(0, 200)}`).toBeLessThan(500);
          // The merchant API's answers in the shape its document gives for each status (the
          // transactions surface has its own, `{"error": "<message>"}`); the widget's in §7.2's.
          if (path.startsWith('/api/v1/')) assertResponseInContract(method, path, response.status, text);
          else if (response.status >= 400) {
            expect(JSON.parse(text).error).toMatchObject({ type: expect.any(String), code: expect.any(String) });
          }
        }),
        { numRuns: count(300, 10_000), endOnFailure: true },
      );
      // The counterexample can be megabytes: say which request failed and why, briefly.
      if (result.failed) {
        const [request] = result.counterexample ?? [];
        const sentAs = {
          method: request?.init.method,
          path: request?.path.slice(0, 200),
          // Its headers without the key.
          headers: { ...(request?.init.headers as Record<string, string>), authorization: undefined },
        };
        throw new Error(
          `${JSON.stringify(sentAs)}: ${String(result.errorInstance).slice(0, 600)}\n` +
            `server error: ${lastServerError(t)}`,
        );
      }
      const health = await fetch(`${t.url}/healthz`);
      expect(health.status).toBe(200);
      expect({} as Record<string, unknown>).not.toHaveProperty('admin');
      expect({} as Record<string, unknown>).not.toHaveProperty('polluted');
      const rss = process.memoryUsage().rss / 1024 / 1024;
      reportFigure(
        `hostile input (${engine})`,
        `${sent} generated requests over ${OPERATIONS.length} operations, ${fivexx} 5xx; statuses ${[...statuses]
          .sort()
          .map(([s, n]) => `${s}x${n}`)
          .join(' ')}; rss ${rss.toFixed(0)} MiB`,
      );
    },
    BATTERY_TIMEOUT_MS,
  );
});

/** One generated request to any public operation, with or without the key: what the battery sends. */
const hostileRequest = (secretKey: string) =>
  fc
    .tuple(
      fc.constantFrom(...OPERATIONS),
      fc.oneof(hostileJson.map(utf8), invalidUtf8),
      contentType,
      idPart,
      idPart,
      query,
      headers,
      fc.boolean(),
    )
    .map(([op, body, type, id, eventId, search, extra, authenticated]) => {
      const path = op.path.replace('{id}', encodeId(id)).replace('{event_id}', encodeId(eventId)) + search;
      const h: Record<string, string> = { ...extra };
      if (authenticated) h.authorization = `Bearer ${secretKey}`;
      const withBody = op.method !== 'GET' && op.method !== 'DELETE';
      if (withBody) h['content-type'] = type;
      return { path, init: { method: op.method, headers: h, ...(withBody ? { body } : {}) } as RequestInit };
    });

/** The resident memory of a process, from Linux's /proc, in MiB. */
const rssMiB = (pid: number) =>
  Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;

/**
 * The V8 heap of a process started with --inspect, after a full garbage collection, in MiB:
 * through the inspector protocol, so the server needs no hook of its own.
 */
async function heapAfterGcMiB(inspectPort: number): Promise<number> {
  const [target] = (await (await fetch(`http://127.0.0.1:${inspectPort}/json/list`)).json()) as {
    webSocketDebuggerUrl: string;
  }[];
  const socket = new WebSocket(target?.webSocketDebuggerUrl as string);
  await new Promise((resolve, reject) => {
    socket.addEventListener('open', resolve, { once: true });
    socket.addEventListener('error', reject, { once: true });
  });
  let next = 0;
  const call = (method: string, params: object = {}) =>
    new Promise<any>((resolve) => {
      const id = ++next;
      const onMessage = (event: MessageEvent) => {
        const message = JSON.parse(String(event.data));
        if (message.id !== id) return;
        socket.removeEventListener('message', onMessage);
        resolve(message.result);
      };
      socket.addEventListener('message', onMessage);
      socket.send(JSON.stringify({ id, method, params }));
    });
  try {
    await call('HeapProfiler.collectGarbage');
    const used = await call('Runtime.evaluate', { expression: 'process.memoryUsage().heapUsed', returnByValue: true });
    return Number(used.result.value) / 1024 / 1024;
  } finally {
    socket.close();
  }
}

describe.each(ENGINES)('memory of a server under hostile input (%s)', (engine) => {
  let inspectPort: number;
  const { t, shop } = useTestServer(engine, { config: { logLevel: 'warn' }, withAccount: true });
  // Measured in an \`obolus serve\` of its own: this process's memory holds the test's clients too.
  const server = useSecondProcess(t, async () => {
    inspectPort = await freePort();
    return { env: { NODE_OPTIONS: `--inspect=127.0.0.1:${inspectPort}` } };
  });

  it(
    'grows far less over a second batch of hostile requests than over the first: no growth without bound',
    async () => {
      const pid = server.child.pid as number;
      const batch = count(750, 10_000);
      const send = async () => {
        const requests = fc.sample(hostileRequest(shop.secretKey), batch);
        let fivexx = 0;
        await Promise.all(
          Array.from({ length: 8 }, async (_, lane) => {
            for (let i = lane; i < requests.length; i += 8) {
              const request = requests[i] as (typeof requests)[number];
              const response = await fetch(server.url + request.path, request.init);
              await response.arrayBuffer();
              if (response.status >= 500) fivexx++;
            }
          }),
        );
        return fivexx;
      };
      const measure = async () => ({ heap: await heapAfterGcMiB(inspectPort), rss: rssMiB(pid) });
      const before = await measure();
      const fivexxFirst = await send();
      const afterFirst = await measure();
      const fivexxSecond = await send();
      const afterSecond = await measure();
      expect(fivexxFirst + fivexxSecond).toBe(0);
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
      const [first, second] = [afterFirst.heap - before.heap, afterSecond.heap - afterFirst.heap];
      // The first batch warms the process up (code compiled, caches and pools filled); a leak
      // would make the second grow about as much.
      expect(second).toBeLessThanOrEqual(Math.max(first / 2, 1));
      const signed = (n: number) => `${n >= 0 ? '+' : ''}${n.toFixed(1)}`;
      reportFigure(
        `memory under hostile input (${engine})`,
        `server heap after GC ${before.heap.toFixed(1)} MiB at start, ${signed(first)} MiB over ${batch} hostile requests, ${signed(second)} MiB over ${batch} more (rss ${before.rss.toFixed(0)} -> ${afterFirst.rss.toFixed(0)} -> ${afterSecond.rss.toFixed(0)} MiB)`,
      );
    },
    BATTERY_TIMEOUT_MS,
  );
});

/**
 * Sends `head`, then `trickle` one byte every 100 ms; resolves with what the server answered, when
 * it hung up, and how many bytes of `trickle` were still unsent then (0: the client finished first).
 */
function slowClient(
  port: number,
  head: string,
  trickle: string,
): Promise<{ answer: string; closedAfterMs: number; unsent: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let answer = '';
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(head);
      let sent = 0;
      const timer = setInterval(() => {
        if (sent < trickle.length && socket.writable) socket.write(trickle[sent++] as string);
      }, 100);
      socket.on('close', () => {
        clearInterval(timer);
        resolve({ answer, closedAfterMs: performance.now() - started, unsent: trickle.length - sent });
      });
    });
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('error', (error) => (/ECONNRESET|EPIPE/.test(error.message) ? undefined : reject(error)));
  });
}

describe('slow clients (slowloris)', () => {
  const { t, shop } = useTestServer('sqlite', {
    config: { headersTimeoutMs: 500, requestTimeoutMs: 1000 },
    withAccount: true,
  });

  const port = () => Number(new URL(t.url).port);

  /** The status line, headers and JSON body of a raw HTTP answer. */
  const parse = (answer: string) => {
    const [head = '', body = ''] = answer.split('\r\n\r\n');
    return { head, json: JSON.parse(body) };
  };
  const timeoutError = (answer: string) => {
    const { head, json } = parse(answer);
    expect(head).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(head).toMatch(/\r\nContent-Type: application\/json; charset=utf-8\r\n/i);
    expect(head).toMatch(/\r\nConnection: close/i);
    const requestId = /\r\nRequest-Id: (req_\w+)/i.exec(head)?.[1];
    // The §7.2 error shape, as every other error of the API.
    expect(json).toEqual({
      error: {
        type: 'invalid_request',
        code: 'request_timeout',
        message: expect.stringContaining('not received in time'),
        request_id: requestId,
      },
    });
  };

  it('a client trickling its headers is answered 408 and cut off after the headers timeout', async () => {
    const trickle = 'X-Slow: '.padEnd(60, 'a');
    const { answer, closedAfterMs, unsent } = await slowClient(
      port(),
      'GET /api/v1/payment-intents HTTP/1.1\r\n',
      trickle,
    );
    // The server's 408 (only its timeout writes one) and its hang-up, while the client still had
    // bytes to send: cut off, not served once the client was done. Not before the timeout either.
    // No upper bound in milliseconds: a loaded machine delays the cut-off, not its order (0272).
    timeoutError(answer);
    expect(unsent, 'the server waited for the whole trickle').toBeGreaterThan(0);
    expect(closedAfterMs).toBeGreaterThanOrEqual(450);
    reportFigure(
      'slowloris headers',
      `cut off after ${closedAfterMs.toFixed(0)} ms (timeout 500 ms), ${unsent} of ${trickle.length} bytes unsent`,
    );
  });

  it('a client trickling its body is answered 408 and cut off after the request timeout', async () => {
    const body = JSON.stringify({ amount: 1000, currency: 'USD', mode: 'sandbox', reference: 'x'.repeat(40) });
    const head = `POST /api/v1/payment-intents HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${shop.secretKey}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
    const { answer, closedAfterMs, unsent } = await slowClient(port(), head, body);
    timeoutError(answer);
    expect(unsent, 'the server waited for the whole body').toBeGreaterThan(0);
    expect(closedAfterMs).toBeGreaterThanOrEqual(950);
    // Nothing was created from the half body.
    const list = await t.call('GET', '/api/v1/payment-intents', { key: shop.secretKey });
    expect(list.json.data).toEqual([]);
    reportFigure(
      'slowloris body',
      `cut off after ${closedAfterMs.toFixed(0)} ms (timeout 1000 ms), ${unsent} of ${body.length} bytes unsent`,
    );
  });

  it('a slow body on the transactions surface gets the same 408 (no route is known yet)', async () => {
    const head = `POST /api/v1/transactions/0123456789abcdef01234567/refunds HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${shop.secretKey}\r\nContent-Type: application/json\r\nContent-Length: 40\r\n\r\n`;
    const { answer } = await slowClient(port(), head, '{"amount":100}'.padEnd(40));
    timeoutError(answer);
  });

  it('headers over 16 KB are a 431 headers_too_large in the error shape', async () => {
    const head = `GET /api/v1/payment-intents HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`;
    const { answer } = await slowClient(port(), head, '');
    const { head: status, json } = parse(answer);
    expect(status).toMatch(/^HTTP\/1\.1 431 /);
    expect(json.error).toMatchObject({ type: 'invalid_request', code: 'headers_too_large' });
  });

  it('a slow but timely client is served', async () => {
    const head = 'GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n';
    const { answer } = await slowClient(port(), head, '\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 200/);
  });

  it('refuses timeouts out of range or a headers timeout longer than the request timeout, naming the variable', () => {
    expect(() => loadConfig({ OBOLUS_HEADERS_TIMEOUT_MS: '50' })).toThrow(
      /OBOLUS_HEADERS_TIMEOUT_MS must be 100\.\.600000/,
    );
    expect(() => loadConfig({ OBOLUS_HEADERS_TIMEOUT_MS: '20000', OBOLUS_REQUEST_TIMEOUT_MS: '10000' })).toThrow(
      /must not be longer than OBOLUS_REQUEST_TIMEOUT_MS/,
    );
    expect(loadConfig({})).toMatchObject({ headersTimeoutMs: 10_000, requestTimeoutMs: 30_000 });
  });
});
