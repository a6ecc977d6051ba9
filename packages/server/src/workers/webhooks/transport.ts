import { lookup as dnsLookup } from 'node:dns/promises';
import { type ClientRequest, request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { type BlockList, isIP, type LookupFunction, connect as netConnect } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import {
  forbiddenBlockList,
  forbiddenReason,
  isLoopbackName,
  unbracket,
} from '../../domain/webhooks/address-policy.ts';
import type { SendResult, WebhookSender } from '../../domain/webhooks/deliveries.ts';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}
/** Name -> addresses. The system resolver in production; a stub in tests (the outside world). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })) as ResolvedAddress[];

export interface TransportOptions {
  allowLoopback: boolean;
  resolve?: Resolver;
  timeoutMs?: number;
  /** Extra trusted certificate authorities (tests; operators use NODE_EXTRA_CA_CERTS). */
  ca?: string | Buffer;
  /**
   * Whether the answer of a receiver at this address may be kept (its first 1 KB, a redirect's
   * Location): only a public address's. Tests, whose receivers are all on loopback, say which.
   */
  keepsAnswerOf?: (address: string) => boolean;
}

/**
 * A loopback or private receiver is a service of the operator's network, not the merchant's:
 * what it answers is never stored nor shown (issue 25 item 4), or an endpoint on
 * 127.0.0.1:<port> would read local services through GET /webhook-endpoints/{id}/attempts.
 */
export const isPublicReceiver = (address: string): boolean =>
  forbiddenReason(address.replace(/^::ffff:(?=\d+\.)/i, ''), false) === null;

export const SEND_TIMEOUT_MS = 10_000;
export const RESPONSE_BODY_BYTES = 1024;

class RefusedAddress extends Error {}

/**
 * DNS is resolved here, and every address checked, inside the connect of this very request:
 * a name that answers a public address when the endpoint is saved and a private one later
 * (DNS rebinding) is still refused. Any forbidden address refuses the whole name.
 */
function guardedLookup(resolve: Resolver, allowLoopback: boolean): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (found) => {
        const wanted = found.filter((a) => !options.family || a.family === options.family);
        const bad = wanted.find((a) => forbiddenReason(a.address, allowLoopback) !== null);
        if (bad) {
          const reason = forbiddenReason(bad.address, allowLoopback);
          return callback(new RefusedAddress(`${hostname} resolves to ${bad.address} (${reason})`), '', 4);
        }
        const first = wanted[0];
        if (!first)
          return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 4);
        if (options.all) return (callback as unknown as (e: null, a: ResolvedAddress[]) => void)(null, wanted);
        callback(null, first.address, first.family);
      },
      (error: Error) => callback(error as NodeJS.ErrnoException, '', 4),
    );
  };
}

function describe(error: Error & { code?: string }, timeoutMs: number): string {
  if (error instanceof RefusedAddress) return `refused: ${error.message}; webhooks go to public addresses only`;
  switch (error.code) {
    case 'ERR_IP_BLOCKED':
      return 'refused: the address is not public; webhooks go to public addresses only';
    case 'ETIMEDOUT_WEBHOOK':
      return `timed out after ${timeoutMs / 1000} s`;
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
      return 'connection reset by the receiver';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `DNS: ${error.message}`;
    default:
      return error.message.slice(0, 300);
  }
}

/** POSTs signed webhooks: no redirects followed, a hard timeout, the first 1 KB of the answer kept. */
export class HttpWebhookSender implements WebhookSender {
  readonly #allowLoopback: boolean;
  readonly #resolve: Resolver;
  readonly #timeoutMs: number;
  readonly #ca: string | Buffer | undefined;
  readonly #blockList: BlockList;
  readonly #keepsAnswerOf: (address: string) => boolean;

  constructor(options: TransportOptions) {
    this.#keepsAnswerOf = options.keepsAnswerOf ?? isPublicReceiver;
    this.#allowLoopback = options.allowLoopback;
    this.#resolve = options.resolve ?? systemResolver;
    this.#timeoutMs = options.timeoutMs ?? SEND_TIMEOUT_MS;
    this.#ca = options.ca;
    this.#blockList = forbiddenBlockList(options.allowLoopback);
  }

  async send(urlText: string, headers: Record<string, string>, body: string): Promise<SendResult> {
    const started = performance.now();
    const failure = (error: string): SendResult => ({
      statusCode: null,
      latencyMs: Math.round(performance.now() - started),
      responseBody: null,
      error,
    });
    const url = URL.canParse(urlText) ? new URL(urlText) : null;
    if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) return failure('refused: not an http(s) URL');
    const host = unbracket(url.hostname);
    // IP literals never reach the lookup, so they are judged here (and by the socket's blockList).
    const reason = isIP(host)
      ? forbiddenReason(host, this.#allowLoopback)
      : isLoopbackName(host) && !this.#allowLoopback
        ? 'loopback'
        : null;
    if (reason !== null) return failure(`refused: ${host} is ${reason}; webhooks go to public addresses only`);
    return new Promise((resolve) => {
      const request = this.#request(url, host, headers, body, (result) => {
        clearTimeout(timer);
        resolve({ ...result, latencyMs: Math.round(performance.now() - started) });
      });
      const timer = setTimeout(
        () => request.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT_WEBHOOK' })),
        this.#timeoutMs,
      );
    });
  }

  #request(
    url: URL,
    host: string,
    headers: Record<string, string>,
    body: string,
    finish: (result: Omit<SendResult, 'latencyMs'>) => void,
  ): ClientRequest {
    let finished = false;
    const once = (result: Omit<SendResult, 'latencyMs'>) => {
      if (finished) return;
      finished = true;
      finish(result);
    };
    const secure = url.protocol === 'https:';
    const port = Number(url.port) || (secure ? 443 : 80);
    const createConnection = () => {
      const raw = netConnect({
        host,
        port,
        lookup: guardedLookup(this.#resolve, this.#allowLoopback),
        blockList: this.#blockList,
      });
      if (!secure) return raw;
      return tlsConnect({
        socket: raw,
        host,
        ...(isIP(host) ? {} : { servername: host }),
        ...(this.#ca ? { ca: this.#ca } : {}),
      });
    };
    const send = secure ? httpsRequest : httpRequest;
    const request = send(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        createConnection,
        agent: undefined,
      },
      (response) => readHead(response, this.#keepsAnswerOf(response.socket?.remoteAddress ?? ''), once),
    );
    request.on('error', (error) =>
      once({ statusCode: null, responseBody: null, error: describe(error, this.#timeoutMs) }),
    );
    request.end(body);
    return request;
  }
}

/**
 * Keeps the first 1 KB of the body and hangs up: a receiver cannot make us read megabytes.
 * `keep` false (a loopback or private receiver): the status only, neither body nor Location.
 */
function readHead(
  response: IncomingMessage,
  keep: boolean,
  finish: (result: Omit<SendResult, 'latencyMs'>) => void,
): void {
  const status = response.statusCode ?? 0;
  const chunks: Buffer[] = [];
  let size = 0;
  const done = () => {
    const responseBody = keep ? Buffer.concat(chunks).subarray(0, RESPONSE_BODY_BYTES).toString('utf8') : null;
    const location = keep ? ` (Location: ${String(response.headers.location ?? '')})` : '';
    const error = status >= 300 && status < 400 ? `redirects are not followed${location}` : null;
    finish({ statusCode: status, responseBody, error });
    response.destroy();
  };
  response.on('data', (chunk: Buffer) => {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= RESPONSE_BODY_BYTES) done();
  });
  response.on('end', done);
  response.on('error', done);
}
