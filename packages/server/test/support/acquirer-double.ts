import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { fileURLToPath } from 'node:url';
import { HttpAcquirer } from '../../src/processors/http-acquirer.ts';
import type { LiveConnectorConfig } from '../../src/processors/live-connector-config.ts';

const SCRIPT = fileURLToPath(new URL('../fixtures/acquirer-double-server.ts', import.meta.url));
export const DOUBLE_TLS_DIR = fileURLToPath(new URL('../fixtures/webhook-tls', import.meta.url));

/** How the double treats a card number (test/fixtures/acquirer-double-server.ts). */
export interface DoubleRule {
  answer: 'approve' | 'decline' | 'challenge' | 'error' | 'pending';
  decline_code?: string;
  /**
   * What goes wrong on POST /authorizations. hang: processed, never answered. hang_unprocessed:
   * never answered, nothing processed. error_500: the protocol's "not processed" 500.
   * conflict_409: "in progress". drop_after: processed, connection dropped. bare_502_after:
   * processed, a proxy's 502. unreadable_after: processed, a 200 that is not a protocol answer.
   */
  fault?:
    | 'hang'
    | 'hang_unprocessed'
    | 'error_500'
    | 'conflict_409'
    | 'drop_after'
    | 'bare_502_after'
    | 'unreadable_after';
  /** The fault hits this many requests, then the double answers normally. */
  times?: number;
  /** Pads the answer to POST /authorizations to exactly this many bytes. */
  pad_to?: number;
}

/** One request the double received, exactly as sent (card included: it plays the acquirer). */
export interface ReceivedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: any;
}

export interface AcquirerDouble {
  /** Base address the connector is configured with (it carries a /v1 prefix). */
  url: string;
  key: string;
  /** A connector pointed at the double. */
  connector(over?: Partial<LiveConnectorConfig>): HttpAcquirer;
  config(over?: Partial<LiveConnectorConfig>): LiveConnectorConfig;
  rule(cardNumber: string, rule: DoubleRule): Promise<void>;
  /** Lookups answer a bare 503 while set. */
  failLookups(fail: boolean): Promise<void>;
  /** Decides an attempt the double left pending. */
  decide(attemptId: string, answer: 'approve' | 'decline', declineCode?: string): Promise<void>;
  requests(): Promise<ReceivedRequest[]>;
  /** What the double holds per attempt id: decided, challenge, pending or tombstone. */
  attempts(): Promise<Record<string, { state: string; body?: any }>>;
  /** Forgets rules and received requests, and lets go of hanging connections. */
  reset(): Promise<void>;
  stop(): Promise<void>;
}

/** The acquirer double as a real separate process on a loopback port; `tls` serves HTTPS with the test certificate. */
export async function startAcquirerDouble(options: { tls?: boolean } = {}): Promise<AcquirerDouble> {
  const key = `acq_test_${Math.random().toString(36).slice(2)}`;
  const child = spawn(process.execPath, [SCRIPT], {
    env: {
      ...process.env,
      ACQUIRER_DOUBLE_KEY: key,
      ...(options.tls ? { ACQUIRER_DOUBLE_TLS_DIR: DOUBLE_TLS_DIR } : {}),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const port = await portOf(child);
  const scheme = options.tls ? 'https' : 'http';
  const url = `${scheme}://127.0.0.1:${port}/v1`;
  const ca = options.tls ? readFileSync(`${DOUBLE_TLS_DIR}/cert.pem`) : undefined;
  const call = (path: string, body?: unknown) => adminCall(`${scheme}://127.0.0.1:${port}/_admin${path}`, body, ca);
  const config = (over: Partial<LiveConnectorConfig> = {}): LiveConnectorConfig => ({
    url: new URL(url),
    key,
    timeoutMs: 2000,
    ...over,
  });
  return {
    url,
    key,
    config,
    connector: (over) => new HttpAcquirer(config(over)),
    rule: (number, rule) => call('/rules', { number, rule }),
    failLookups: (fail) => call('/lookups', { fail }),
    decide: (id, answer, declineCode) => call(`/attempts/${id}`, { answer, decline_code: declineCode }),
    requests: () => call('/requests'),
    attempts: () => call('/attempts'),
    reset: () => call('/reset', {}),
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

function portOf(child: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout?.on('data', (chunk) => {
      output += chunk;
      const line = /^\{"port":(\d+)\}$/m.exec(output);
      if (line?.[1]) resolve(Number(line[1]));
    });
    child.stderr?.on('data', (chunk) => (output += chunk));
    child.once('exit', (code) => reject(new Error(`acquirer double exited with ${code}: ${output}`)));
  });
}

/** Admin calls trust the test certificate when the double serves HTTPS. */
function adminCall(url: string, body: unknown, ca: Buffer | undefined): Promise<any> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const send = url.startsWith('https:') ? httpsRequest : httpRequest;
    const req = send(
      url,
      {
        method: payload === undefined ? 'GET' : 'POST',
        headers: payload === undefined ? {} : { 'content-type': 'application/json' },
        ...(ca ? { ca } : {}),
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () =>
          res.statusCode === 200
            ? resolve(JSON.parse(text))
            : reject(new Error(`acquirer double ${url}: ${res.statusCode}`)),
        );
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}
