import { HOUR, MINUTE } from '../../clock.ts';
import { clientNetwork } from '../client-network.ts';
import type { WindowCounters } from '../window-counters.ts';

/** Failed sign-ins for one email from one client network (IPv4 address, IPv6 /64) per window. */
export const SIGN_IN_WINDOW_MS = 15 * MINUTE;
export const SIGN_IN_MAX_FAILURES = 10;
/** Failed sign-ins from one client network over every email, per window. */
export const SIGN_IN_MAX_FAILURES_PER_NETWORK = 30;
/**
 * The slower cap per email over every network (decision 0201): a guesser spread over many
 * networks meets it, while one stranger who knows the email locks out only its own network.
 */
export const SIGN_IN_EMAIL_WINDOW_MS = HOUR;
export const SIGN_IN_MAX_FAILURES_PER_EMAIL = 50;

interface Limit {
  scope: string;
  subject: string;
  windowMs: number;
  limit: number;
}

/** The slots one attempt takes; given back when it succeeds or was never checked. */
export interface SignInReservation {
  release(): Promise<void>;
  /** This attempt took the last failure an email may have (from its network, or at all): a failure locks it. */
  locksEmail: boolean;
}

export type Reserved =
  | { ok: true; reservation: SignInReservation }
  | { ok: false; retryAfterMs: number; perEmail: boolean };

function limitsOf(email: string, clientIp: string): Limit[] {
  const network = clientNetwork(clientIp);
  return [
    {
      scope: 'sign_in_email_network',
      subject: `${email} ${network}`,
      windowMs: SIGN_IN_WINDOW_MS,
      limit: SIGN_IN_MAX_FAILURES,
    },
    {
      scope: 'sign_in_network',
      subject: network,
      windowMs: SIGN_IN_WINDOW_MS,
      limit: SIGN_IN_MAX_FAILURES_PER_NETWORK,
    },
    {
      scope: 'sign_in_email',
      subject: email,
      windowMs: SIGN_IN_EMAIL_WINDOW_MS,
      limit: SIGN_IN_MAX_FAILURES_PER_EMAIL,
    },
  ];
}

/**
 * Reserves a failure in every window of this attempt before its password is checked, each in
 * one atomic statement (decision 0200): of N attempts racing, at most the limit's remainder
 * are checked, in every process. A full window gives back the slots already taken.
 */
export async function reserveSignIn(
  counters: WindowCounters,
  email: string,
  clientIp: string,
  now: number,
): Promise<Reserved> {
  const taken: { limit: Limit; windowStart: number }[] = [];
  let locksEmail = false;
  const release = async () => {
    for (const { limit, windowStart } of taken) await counters.release(limit.scope, limit.subject, windowStart);
  };
  for (const limit of limitsOf(email, clientIp)) {
    const slot = await counters.reserve(limit.scope, limit.subject, limit.windowMs, now, limit.limit);
    if (slot === null) {
      await release();
      return {
        ok: false,
        retryAfterMs: limit.windowMs - (now % limit.windowMs),
        perEmail: limit.scope === 'sign_in_email',
      };
    }
    taken.push({ limit, windowStart: slot.windowStart });
    if (slot.count === limit.limit && limit.scope !== 'sign_in_network') locksEmail = true;
  }
  return { ok: true, reservation: { release, locksEmail } };
}
