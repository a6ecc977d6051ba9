import {
  authorizationBody,
  type Decision,
  NOT_PROCESSED_MESSAGE,
  notProcessed,
  outcomeOfDecision,
  readDecision,
  unknownOutcome,
} from './acquirer-protocol.ts';
import { AcquirerTransport, type Exchange, type ExchangeRequest } from './acquirer-transport.ts';
import type { LiveConnectorConfig } from './live-connector-config.ts';
import type { AuthorizeOutcome, AuthorizeRequest, Processor } from './processor.ts';

/** Where the connector reports trouble for operators. Fields only: never a body, the card or the key. */
export interface ConnectorLog {
  warn(fields: Record<string, unknown>, message: string): void;
}

type Call = 'authorize' | 'challenge' | 'lookup';

const CHALLENGE_UNSUPPORTED =
  'This card needs 3-D Secure authentication, which is not available for this payment. Try another card.';

/**
 * The live connector: real payments, sent as JSON over HTTPS to the acquirer the operator
 * configured (docs/live-connector.md). Every answer is an outcome, never a throw: a throw
 * would be recorded as "nothing charged", which after the request left is not known.
 */
export class HttpAcquirer implements Processor {
  /** Carries the host, so an attempt is only ever looked up at the acquirer that took it. */
  readonly name: string;
  readonly #transport: AcquirerTransport;
  readonly #timeoutMs: number;
  readonly #log: ConnectorLog | undefined;

  constructor(config: LiveConnectorConfig, log?: ConnectorLog) {
    this.name = `http-acquirer:${config.url.host}`;
    this.#transport = new AcquirerTransport(config.url, config.key);
    this.#timeoutMs = config.timeoutMs;
    this.#log = log;
  }

  async authorize(request: AuthorizeRequest): Promise<AuthorizeOutcome> {
    // Sandbox money is never sent to an acquirer, whatever the caller got wrong upstream.
    if (request.mode !== 'live') {
      return { kind: 'error', issuer: null, message: 'The live connector does not process sandbox payments.' };
    }
    const exchange = await this.#sendWithRetry(
      {
        method: 'POST',
        path: '/authorizations',
        body: authorizationBody(request),
        headers: { 'idempotency-key': request.attemptId },
      },
      request.attemptId,
    );
    return this.#answer(exchange, request.attemptId, 'authorize');
  }

  /** The shopper passed or failed a challenge (not reached today: see decision 0042). */
  async completeChallenge(challengeRef: string, passed: boolean): Promise<AuthorizeOutcome> {
    const exchange = await this.#transport.send(challengeCall(challengeRef, passed), this.#timeoutMs);
    const outcome = await this.#answer(exchange, challengeRef, 'challenge');
    // A challenge not passed can never be approved (protocol rule), so "unknown" means declined.
    if (!passed && outcome.kind !== 'approved') return challengeDeclined(outcome);
    return outcome;
  }

  async lookup(attemptId: string): Promise<AuthorizeOutcome | null> {
    const exchange = await this.#transport.send(
      { method: 'GET', path: `/authorizations/${encodeURIComponent(attemptId)}` },
      this.#timeoutMs,
    );
    const decision = exchange.kind === 'answered' ? readDecision(exchange.body, attemptId) : null;
    if (exchange.kind === 'answered' && decision?.result === 'not_found' && exchange.status === 404) {
      return { kind: 'error', issuer: null, message: NOT_PROCESSED_MESSAGE };
    }
    if (exchange.kind === 'answered' && exchange.status === 200 && decision && decision.result !== 'not_found') {
      if (decision.result === 'pending') return null;
      return this.#decided(decision, attemptId);
    }
    this.#warn(attemptId, 'lookup', exchange);
    return null;
  }

  /**
   * One retry, with the same attempt id, when the request may have arrived but its answer
   * was lost: the acquirer answers a repeated attempt id with its first decision.
   */
  async #sendWithRetry(call: ExchangeRequest, attemptId: string): Promise<Exchange> {
    const deadline = Date.now() + this.#timeoutMs;
    const first = await this.#transport.send(call, this.#timeoutMs);
    const left = deadline - Date.now();
    if (!worthRetrying(first, attemptId) || left <= 0) return first;
    this.#warn(attemptId, 'authorize', first, 'retrying with the same attempt id');
    return this.#transport.send(call, left);
  }

  async #answer(exchange: Exchange, attemptId: string, call: Call): Promise<AuthorizeOutcome> {
    if (exchange.kind !== 'answered') {
      this.#warn(attemptId, call, exchange);
      return exchange.kind === 'not_sent' ? notProcessed() : unknownOutcome();
    }
    const decision = readDecision(exchange.body, attemptId);
    const ok = exchange.status >= 200 && exchange.status < 300;
    // Lookup-only answers mean nothing here, and a challenge answering "challenge" again is not a decision.
    const final = decision?.result !== 'pending' && decision?.result !== 'not_found';
    if (ok && decision && final && !(call === 'challenge' && decision.result === 'challenge')) {
      return this.#decided(decision, attemptId);
    }
    this.#warn(attemptId, call, exchange);
    return meaningOfFailure(exchange.status, decision);
  }

  async #decided(decision: Exclude<Decision, { result: 'pending' | 'not_found' }>, attemptId: string) {
    if (decision.result !== 'challenge') return outcomeOfDecision(decision);
    // Obolus cannot show a live issuer's challenge page yet (decision 0042): end it as not passed.
    return this.completeChallenge(attemptId, false);
  }

  #warn(attemptId: string, call: Call, exchange: Exchange, message = 'live connector call failed'): void {
    const detail =
      exchange.kind === 'answered' ? { status: exchange.status } : { failure: exchange.kind, reason: exchange.reason };
    this.#log?.warn({ attempt_id: attemptId, call, ...detail }, message);
  }
}

/**
 * What a non-answer means for the money (decision 0041): redirects and 4xx, and 5xx that
 * carry the protocol's `error`, were refused before processing; 409 is the same attempt
 * still being processed; anything else (a 2xx we cannot read, other 5xx) may have moved money.
 */
function meaningOfFailure(status: number, decision: Decision | null): AuthorizeOutcome {
  if (status === 409) return unknownOutcome();
  if (status >= 300 && status < 500) return notProcessed();
  if (status >= 500 && decision?.result === 'error') return notProcessed();
  return unknownOutcome();
}

function worthRetrying(exchange: Exchange, attemptId: string): boolean {
  if (exchange.kind === 'lost') return !exchange.timedOut;
  if (exchange.kind !== 'answered' || exchange.status < 500) return false;
  return readDecision(exchange.body, attemptId)?.result !== 'error';
}

const challengeCall = (attemptId: string, passed: boolean): ExchangeRequest => ({
  method: 'POST',
  path: `/authorizations/${encodeURIComponent(attemptId)}/challenge`,
  body: { passed },
});

function challengeDeclined(outcome: AuthorizeOutcome): AuthorizeOutcome {
  const issuer = outcome.kind === 'declined' ? outcome.issuer : null;
  return {
    kind: 'declined',
    issuer,
    code: 'authentication_failed',
    threeDS: 'challenge_failed',
    message: CHALLENGE_UNSUPPORTED,
  };
}
