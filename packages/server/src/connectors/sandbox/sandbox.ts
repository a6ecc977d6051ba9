import { createHash } from 'node:crypto';
import { declined } from '../../domain/payments/declines.ts';
import type {
  AuthorizeOutcome,
  AuthorizeRequest,
  ChallengeAnswer,
  DeclineCode,
  InterruptedAttempt,
  IssuerInfo,
  Processor,
  ThreeDSResult,
} from '../../domain/payments/ports.ts';

/**
 * The sandbox simulator: test cards with fixed outcomes and a simulated 3-D Secure ACS.
 * It keeps no state, so any process can finish a challenge another process started: the
 * challenge reference carries everything completeChallenge needs.
 */

/** What a test card does. A challenge card says what happens once the shopper passes. */
export type SandboxScenario =
  | { kind: 'approve'; threeDS: 'not_required' | 'frictionless'; disputeAfterMs?: number }
  | { kind: 'decline'; code: DeclineCode }
  | { kind: 'error' }
  | { kind: 'challenge'; whenPassed: 'approve' | DeclineCode };

export interface SandboxTestCard {
  /** Stable slug, carried in challenge references. */
  id: string;
  number: string;
  brand: string;
  description: string;
  scenario: SandboxScenario;
}

export const SANDBOX_DISPUTE_AFTER_MS = 60_000;
/** The one-time code the simulated ACS accepts; any other code fails the challenge. */
export const SANDBOX_3DS_CODE = '1234';

export const SANDBOX_TEST_CARDS: readonly SandboxTestCard[] = [
  {
    id: 'visa_success',
    number: '4242424242424242',
    brand: 'Visa',
    description: 'Succeeds.',
    scenario: { kind: 'approve', threeDS: 'not_required' },
  },
  {
    id: 'mastercard_success',
    number: '5555555555554444',
    brand: 'Mastercard',
    description: 'Succeeds.',
    scenario: { kind: 'approve', threeDS: 'not_required' },
  },
  {
    id: 'amex_success',
    number: '378282246310005',
    brand: 'American Express',
    description: 'Succeeds.',
    scenario: { kind: 'approve', threeDS: 'not_required' },
  },
  {
    id: 'declined',
    number: '4000000000000002',
    brand: 'Visa',
    description: 'Declined.',
    scenario: { kind: 'decline', code: 'card_declined' },
  },
  {
    id: 'insufficient_funds',
    number: '4000000000009995',
    brand: 'Visa',
    description: 'Declined: insufficient funds.',
    scenario: { kind: 'decline', code: 'insufficient_funds' },
  },
  {
    id: 'expired_card',
    number: '4000000000000069',
    brand: 'Visa',
    description: 'Declined: the issuer says the card has expired.',
    scenario: { kind: 'decline', code: 'expired_card' },
  },
  {
    id: 'incorrect_cvc',
    number: '4000000000000127',
    brand: 'Visa',
    description: 'Declined: incorrect security code.',
    scenario: { kind: 'decline', code: 'incorrect_cvc' },
  },
  {
    id: 'processing_error',
    number: '4000000000000119',
    brand: 'Visa',
    description: 'Fails with a processing error; nothing is charged.',
    scenario: { kind: 'error' },
  },
  {
    id: 'challenge',
    number: '4000000000003220',
    brand: 'Visa',
    description: '3-D Secure challenge; succeeds when passed.',
    scenario: { kind: 'challenge', whenPassed: 'approve' },
  },
  {
    id: 'challenge_declined',
    number: '4000008400001629',
    brand: 'Visa',
    description: '3-D Secure challenge, then declined even when passed.',
    scenario: { kind: 'challenge', whenPassed: 'card_declined' },
  },
  {
    id: 'frictionless',
    number: '4000000000003055',
    brand: 'Visa',
    description: 'Frictionless 3-D Secure: authenticated without a challenge; succeeds.',
    scenario: { kind: 'approve', threeDS: 'frictionless' },
  },
  {
    id: 'chargeback',
    number: '4000000000000259',
    brand: 'Visa',
    description: 'Succeeds, then the shopper disputes it (chargeback).',
    scenario: { kind: 'approve', threeDS: 'not_required', disputeAfterMs: SANDBOX_DISPUTE_AFTER_MS },
  },
];

const PROCESSING_ERROR_MESSAGE = 'The sandbox simulated a processing error; nothing was charged.';
const CHALLENGE_REF = /^3ds_([0-9a-f]{24})_([a-z0-9_]+)$/;

export const findTestCard = (number: string) => SANDBOX_TEST_CARDS.find((c) => c.number === number);

/**
 * What the sandbox answered, or would have answered, for an attempt whose answer was never
 * recorded (the process stopped mid-payment): the stored first 6, last 4 and length name the
 * test card, and the outcome is derived from the attempt id as authorize derives it. A
 * challenge never shown to the shopper counts as not completed.
 */
export function sandboxOutcomeOf(attempt: {
  id: string;
  card: { bin: string; last4: string; length: number };
}): AuthorizeOutcome | null {
  const { bin, last4, length } = attempt.card;
  const testCard = SANDBOX_TEST_CARDS.find(
    (c) => c.number.length === length && c.number.startsWith(bin) && c.number.endsWith(last4),
  );
  if (!testCard) return null;
  const outcome = outcomeOf(testCard, digest(`attempt:${attempt.id}`));
  if (outcome.kind !== 'challenge') return outcome;
  return declined(outcome.issuer, 'authentication_failed', 'challenge_failed');
}
export const isSandbox3dsCode = (code: string) => code.trim() === SANDBOX_3DS_CODE;

export class SandboxProcessor implements Processor {
  readonly name = 'sandbox';

  recoverInterrupted(attempt: InterruptedAttempt): AuthorizeOutcome | null {
    return sandboxOutcomeOf(attempt);
  }

  async authorize(request: AuthorizeRequest): Promise<AuthorizeOutcome> {
    // Live money is never simulated, whatever the caller got wrong upstream.
    if (request.mode !== 'sandbox') {
      return {
        kind: 'error',
        issuer: null,
        message: 'The sandbox processor does not process live payments.',
      };
    }
    const testCard = findTestCard(request.card.number.replace(/[\s-]/g, ''));
    if (!testCard) {
      return declined(null, 'card_not_test', 'not_required');
    }
    // Derived from the attempt id, so a retried authorize of one attempt answers the same.
    const token = digest(`attempt:${request.attemptId}`);
    return outcomeOf(testCard, token);
  }

  /** The shopper answered the simulated ACS page: the one-time code passes, anything else or cancel fails. */
  async completeChallenge(challengeRef: string, answer: ChallengeAnswer): Promise<AuthorizeOutcome> {
    const passed = !answer.cancel && isSandbox3dsCode(answer.code ?? '');
    const match = CHALLENGE_REF.exec(challengeRef);
    const testCard = match ? SANDBOX_TEST_CARDS.find((c) => c.id === match[2]) : undefined;
    if (!match?.[1] || testCard?.scenario.kind !== 'challenge') {
      return { kind: 'error', issuer: null, message: 'Unknown 3-D Secure challenge reference.' };
    }
    const issuer = issuerOf(testCard);
    if (!passed) return declined(issuer, 'authentication_failed', 'challenge_failed');
    const { whenPassed } = testCard.scenario;
    if (whenPassed !== 'approve') return declined(issuer, whenPassed, 'challenge_passed');
    return approved(issuer, match[1], 'challenge_passed');
  }
}

function outcomeOf(testCard: SandboxTestCard, token: string): AuthorizeOutcome {
  const issuer = issuerOf(testCard);
  const { scenario } = testCard;
  switch (scenario.kind) {
    case 'approve':
      return approved(issuer, token, scenario.threeDS, scenario.disputeAfterMs);
    case 'decline':
      return declined(issuer, scenario.code, 'not_required');
    case 'error':
      return { kind: 'error', issuer, message: PROCESSING_ERROR_MESSAGE };
    case 'challenge':
      return { kind: 'challenge', issuer, challengeRef: `3ds_${token}_${testCard.id}` };
  }
}

function approved(
  issuer: IssuerInfo,
  token: string,
  threeDS: ThreeDSResult,
  disputeAfterMs?: number,
): AuthorizeOutcome {
  const authorizationCode = authorizationCodeOf(token);
  return disputeAfterMs === undefined
    ? { kind: 'approved', issuer, authorizationCode, threeDS }
    : { kind: 'approved', issuer, authorizationCode, threeDS, disputeAfterMs };
}

const issuerOf = (testCard: SandboxTestCard): IssuerInfo => ({
  brand: testCard.brand,
  bank: 'Obolus Test Bank',
  country: 'US',
});

/** 24 hex digits: enough to be unique per attempt, and reveals nothing of the attempt id. */
const digest = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 24);

/** Six uppercase alphanumerics, as issuers print them, derived so that replays agree. */
function authorizationCodeOf(token: string): string {
  const bytes = createHash('sha256').update(`auth:${token}`).digest();
  const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';
  return Array.from(bytes.subarray(0, 6), (b) => alphabet[b % alphabet.length]).join('');
}
