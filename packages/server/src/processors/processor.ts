import type { Mode } from '../domain/intents.ts';

/**
 * The Processor port: how a payment attempt reaches an acquirer. The sandbox simulator
 * (sandbox.ts) implements it for test cards; live connectors implement it for real money.
 * A processor never touches the store: the payments use case records what it answers.
 */

/** The decrypted card, held in memory only for the length of one authorization. */
export interface CardDetails {
  number: string;
  expMonth: number;
  expYear: number;
  cvc: string;
  name: string;
}

/** What the issuer side tells us about the card (goes onto the transaction record). */
export interface IssuerInfo {
  /** Scheme name for paymenttypetext: Visa, Mastercard, American Express, … */
  brand: string;
  bank: string;
  /** ISO 3166-1 alpha-2 */
  country: string;
}

export interface AuthorizeRequest {
  /** The transaction id of this attempt: processors use it as their idempotency key. */
  attemptId: string;
  amount: number;
  currency: 'USD';
  mode: Mode;
  card: CardDetails;
  descriptor: string | null;
}

export type DeclineCode =
  | 'card_declined'
  | 'insufficient_funds'
  | 'expired_card'
  | 'incorrect_cvc'
  | 'authentication_failed'
  | 'card_not_test';

export type ThreeDSResult = 'not_required' | 'frictionless' | 'challenge_passed' | 'challenge_failed';

export type AuthorizeOutcome =
  | {
      kind: 'approved';
      issuer: IssuerInfo;
      authorizationCode: string;
      threeDS: ThreeDSResult;
      disputeAfterMs?: number;
    }
  | {
      kind: 'declined';
      issuer: IssuerInfo | null;
      code: DeclineCode;
      message: string;
      threeDS: ThreeDSResult;
    }
  /** The issuer wants the shopper to authenticate: show `challengeUrl`, then call completeChallenge. */
  | { kind: 'challenge'; issuer: IssuerInfo; challengeRef: string }
  /** The processor failed to process (a processing error): nothing was charged. */
  | { kind: 'error'; issuer: IssuerInfo | null; message: string }
  /** We do not know whether money moved (timeout, lost connection): reconcile later. */
  | { kind: 'unknown'; issuer: IssuerInfo | null; message: string };

export interface Processor {
  readonly name: string;
  authorize(request: AuthorizeRequest): Promise<AuthorizeOutcome>;
  /** Finishes an attempt that answered `challenge`, once the shopper has passed or failed it. */
  completeChallenge(challengeRef: string, passed: boolean): Promise<AuthorizeOutcome>;
  /**
   * What became of an attempt whose outcome was `unknown` (the reconciler asks; decision
   * 0041). Null while the processor cannot say yet: not decided, or not reachable.
   * Processors that never answer `unknown` (the sandbox) leave it out.
   */
  lookup?(attemptId: string): Promise<AuthorizeOutcome | null>;
}
