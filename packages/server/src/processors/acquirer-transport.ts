import http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';

/**
 * One HTTP exchange with the acquirer, classified by what it means for the money: did
 * anything reach the acquirer? The connector decides the outcome from that
 * (docs/live-connector.md, decision 0041). Nothing here sees or logs the card: the body
 * is opaque bytes.
 */
export type Exchange =
  | { kind: 'answered'; status: number; body: unknown }
  /** Nothing left this process (refused, DNS, TLS handshake, connect timeout): nothing was processed. */
  | { kind: 'not_sent'; reason: string }
  /** The request may have reached the acquirer, and no complete answer came back. */
  | { kind: 'lost'; reason: string; timedOut: boolean };

export interface ExchangeRequest {
  method: 'GET' | 'POST';
  /** Appended to the base address, e.g. `/authorizations/<id>`. */
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
}

/** An acquirer's answer is a small JSON object; anything bigger is not one. */
export const MAX_RESPONSE_BYTES = 64 * 1024;

export class AcquirerTransport {
  readonly #base: URL;
  readonly #key: string;
  readonly #agent: http.Agent;

  constructor(base: URL, key: string) {
    this.#base = base;
    this.#key = key;
    const options = { keepAlive: true, maxSockets: 64 };
    this.#agent = base.protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
  }

  /** Answers within `timeoutMs`, never throws. */
  send(request: ExchangeRequest, timeoutMs: number): Promise<Exchange> {
    return new Promise((resolve) => {
      const payload = request.body === undefined ? undefined : Buffer.from(JSON.stringify(request.body));
      const client = this.#base.protocol === 'https:' ? https : http;
      let sent = false;
      let settled = false;
      const settle = (exchange: Exchange) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(exchange);
      };
      const failed = (reason: string, timedOut = false): Exchange =>
        sent ? { kind: 'lost', reason, timedOut } : { kind: 'not_sent', reason };
      const req = client.request(this.#urlOf(request.path), {
        method: request.method,
        agent: this.#agent,
        headers: this.#headersOf(request, payload),
      });
      const timer = setTimeout(() => {
        settle(failed('timeout', true));
        req.destroy();
      }, timeoutMs);
      req.on('socket', (socket: Socket) => {
        // Once connected (TLS included) the bytes are on their way: from then on a failure is `lost`.
        if (req.reusedSocket) sent = true;
        else socket.once(this.#base.protocol === 'https:' ? 'secureConnect' : 'connect', () => (sent = true));
      });
      req.on('error', (error: NodeJS.ErrnoException) => settle(failed(error.code ?? error.message)));
      req.on('response', async (response) => {
        const read = await readBody(response);
        const status = response.statusCode ?? 0;
        settle('bytes' in read ? { kind: 'answered', status, body: parseJson(read.bytes) } : failed(read.failure));
      });
      req.end(payload);
    });
  }

  #urlOf(path: string): URL {
    const url = new URL(this.#base);
    url.pathname = `${url.pathname.replace(/\/+$/, '')}${path}`;
    return url;
  }

  #headersOf(request: ExchangeRequest, payload: Buffer | undefined): Record<string, string> {
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.#key}`,
      accept: 'application/json',
      'user-agent': 'obolus-live-connector/1',
      ...request.headers,
    };
    if (payload) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(payload.length);
    }
    return headers;
  }
}

/** The whole body, or why there is none: cut short, or too big to be an answer of the protocol. */
function readBody(response: http.IncomingMessage): Promise<{ bytes: Buffer } | { failure: string }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    response.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_RESPONSE_BYTES) {
        chunks.push(chunk);
      } else {
        resolve({ failure: 'response too large' });
        response.destroy();
      }
    });
    response.on('error', () => resolve({ failure: 'response cut short' }));
    response.on('close', () => {
      if (!response.complete) resolve({ failure: 'response cut short' });
    });
    response.on('end', () => resolve({ bytes: Buffer.concat(chunks) }));
  });
}

function parseJson(bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
}
