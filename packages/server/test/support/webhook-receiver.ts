import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { vi } from 'vitest';
import { useStarted } from './hooks.ts';

export interface ReceivedWebhook {
  headers: Record<string, string>;
  body: string;
  json: any;
}

export interface Reply {
  status: number;
  body?: string;
  headers?: Record<string, string>;
  /** Answer only after this long (real time). */
  delayMs?: number;
  /** Answer only once this settles (then `delayMs` more): a test holds answers until it has seen enough requests. */
  after?: Promise<unknown>;
}

/** A real HTTP(S) server on loopback that records every webhook it is sent. */
export interface Receiver {
  url: string;
  port: number;
  received: ReceivedWebhook[];
  /** TCP connections accepted so far: 0 proves nothing reached it. */
  connections(): number;
  /** The most requests with one webhook-id that were ever in flight at the same time. */
  maxConcurrentSameId(): number;
  /** How to answer; 204 by default. */
  reply: (webhook: ReceivedWebhook) => Reply;
  /** Stops listening (connections are refused) until up(). */
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

/** `host`: the address to listen on (a test network's gateway; loopback by default). */
export async function startReceiver(tls?: { key: string; cert: string }, host = '127.0.0.1'): Promise<Receiver> {
  let connections = 0;
  let maxConcurrent = 0;
  const inFlight = new Map<string, number>();
  const sockets = new Set<Socket>();
  const handle = (request: IncomingMessage, response: ServerResponse) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      const headers = Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, String(v)]));
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      const webhook = { headers, body, json };
      receiver.received.push(webhook);
      const id = headers['webhook-id'] ?? '';
      inFlight.set(id, (inFlight.get(id) ?? 0) + 1);
      maxConcurrent = Math.max(maxConcurrent, inFlight.get(id) ?? 0);
      const answer = receiver.reply(webhook);
      const send = () =>
        setTimeout(() => {
          inFlight.set(id, (inFlight.get(id) ?? 1) - 1);
          response.writeHead(answer.status, answer.headers ?? {}).end(answer.body ?? '');
        }, answer.delayMs ?? 0);
      if (answer.after) answer.after.then(send, send);
      else send();
    });
  };
  const make = (): Server => {
    const server = tls ? createHttpsServer(tls, handle) : createHttpServer(handle);
    server.on('connection', (socket: Socket) => {
      connections++;
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    return server;
  };
  let server = make();
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const port = (server.address() as { port: number }).port;
  const stop = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
  const receiver: Receiver = {
    url: `${tls ? 'https' : 'http'}://${host}:${port}/hooks`,
    port,
    received: [],
    connections: () => connections,
    maxConcurrentSameId: () => maxConcurrent,
    reply: () => ({ status: 204 }),
    down: stop,
    async up() {
      server = make();
      await new Promise<void>((resolve) => server.listen(port, host, resolve));
    },
    close: () => (server.listening ? stop() : Promise.resolve()),
  };
  return receiver;
}

/** For a describe block (decision 0290): a receiver started before its tests and closed after them. */
export function useReceiver(tls?: { key: string; cert: string }): Receiver {
  return useStarted(
    'useReceiver: the receiver',
    () => startReceiver(tls),
    (receiver) => receiver.close(),
  );
}

/**
 * Verifies with the `standardwebhooks` library as a receiver would, at the moment the
 * webhook says it was sent (tests move the service's clock through days of backoff).
 * Throws as the library does when verification fails.
 */
export function verifyAsSent(secret: string, webhook: ReceivedWebhook, atMs?: number): unknown {
  vi.useFakeTimers({ toFake: ['Date'], now: atMs ?? Number(webhook.headers['webhook-timestamp']) * 1000 });
  try {
    return new Webhook(secret).verify(webhook.body, webhook.headers);
  } finally {
    vi.useRealTimers();
  }
}
