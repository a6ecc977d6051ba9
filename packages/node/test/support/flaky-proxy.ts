import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { Socket } from 'node:net';

/** What the proxy does with one request: pass it on, or fail the way networks and gateways do. */
export type Fault =
  /** Forward the request and let the server answer, then cut the connection before the client hears it. */
  | { kind: 'drop-after-forward' }
  /** Answer 429 with this Retry-After header, without forwarding. */
  | { kind: 'rate-limit'; retryAfter: string }
  /** Answer 503, without forwarding. */
  | { kind: 'unavailable' }
  | { kind: 'database-unavailable'; retryAfter: string }
  /** Answer 408 as Obolus does to a request that arrived too slowly, without forwarding. */
  | { kind: 'request-timeout' };

export interface SeenRequest {
  method: string;
  path: string;
  idempotencyKey: string | undefined;
  at: number;
  forwarded: boolean;
  /** What the client was answered; undefined when the connection was cut. */
  status?: number;
}

/**
 * A real HTTP proxy on loopback in front of a test server, for the SDK's retry tests. Each
 * request takes the next fault of `faults` (then none), and every request is recorded.
 */
export interface FlakyProxy {
  url: string;
  faults: Fault[];
  seen: SeenRequest[];
  close(): Promise<void>;
}

export async function startFlakyProxy(target: string): Promise<FlakyProxy> {
  const upstream = new URL(target);
  const sockets = new Set<Socket>();
  const proxy: FlakyProxy = { url: '', faults: [], seen: [], close: async () => {} };
  const server: Server = createServer((request, response) => {
    const fault = proxy.faults.shift();
    const seen: SeenRequest = {
      method: request.method ?? 'GET',
      path: request.url ?? '/',
      idempotencyKey: request.headers['idempotency-key'] as string | undefined,
      at: Date.now(),
      forwarded: fault === undefined || fault.kind === 'drop-after-forward',
    };
    proxy.seen.push(seen);
    if (fault?.kind === 'rate-limit') {
      seen.status = 429;
      response.writeHead(429, { 'content-type': 'application/json', 'retry-after': fault.retryAfter });
      response.end(JSON.stringify({ error: { type: 'invalid_request', code: 'rate_limited', message: 'Slow down.' } }));
      return;
    }
    if (fault?.kind === 'request-timeout') {
      seen.status = 408;
      response.writeHead(408, { 'content-type': 'application/json; charset=utf-8', connection: 'close' });
      const message = 'The request was not received in time; send it again without pausing.';
      response.end(JSON.stringify({ error: { type: 'invalid_request', code: 'request_timeout', message } }));
      return;
    }
    if (fault?.kind === 'database-unavailable') {
      seen.status = 503;
      response.writeHead(503, { 'content-type': 'application/json', 'retry-after': fault.retryAfter });
      const message = 'The service is briefly unavailable: it cannot reach its database. Try again in a few seconds.';
      response.end(JSON.stringify({ error: { type: 'server', code: 'database_unavailable', message } }));
      return;
    }
    if (fault?.kind === 'unavailable') {
      seen.status = 503;
      response.writeHead(503, { 'content-type': 'text/plain' });
      response.end('upstream unavailable');
      return;
    }
    forward(upstream, request, (status, headers, body) => {
      if (fault?.kind === 'drop-after-forward') request.socket.destroy();
      else {
        seen.status = status;
        response.writeHead(status, headers);
        response.end(body);
      }
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  proxy.url = `http://127.0.0.1:${port}`;
  proxy.close = () =>
    new Promise((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
  return proxy;
}

function forward(
  upstream: URL,
  request: IncomingMessage,
  done: (status: number, headers: Record<string, string | string[]>, body: Buffer) => void,
): void {
  const outgoing = httpRequest(
    {
      host: upstream.hostname,
      port: upstream.port,
      method: request.method,
      path: request.url,
      headers: { ...request.headers, host: upstream.host },
    },
    (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.on('end', () =>
        done(answer.statusCode ?? 502, answer.headers as Record<string, string | string[]>, Buffer.concat(chunks)),
      );
    },
  );
  outgoing.on('error', () => request.socket.destroy());
  request.pipe(outgoing);
}
