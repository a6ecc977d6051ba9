import { randomBytes } from 'node:crypto';
import type { Clock } from '../../clock.ts';
import type { AccountId } from '../../ids.ts';
import { SESSION_ABSOLUTE_MS } from './sessions.ts';

/**
 * One-time tokens of the dashboard's create forms (docs/decisions/0141). Every form that
 * makes something (a webhook endpoint, a product, an allowed origin, a refund) carries a
 * fresh random token; the first post of it claims the token in the database, a second post
 * (a double click, a reload, a retry after a timeout, another process) finds the claim and
 * is sent to what the first one made. Nothing is written when a form is only shown.
 */
export interface FormUseStore {
  /** Inserts the claim unless the token is already claimed; true when this call claimed it. */
  claim(accountId: AccountId, token: string, sessionDigest: string, now: number): Promise<boolean>;
  /** The claim's result: a string once done, null while the first post is still working, undefined when absent. */
  result(accountId: AccountId, token: string): Promise<string | null | undefined>;
  finish(accountId: AccountId, token: string, result: string): Promise<void>;
  /** The first post failed: the token may be used again (after fixing the form). */
  release(accountId: AccountId, token: string): Promise<void>;
  /** Drops claims made before `before`. */
  purge(before: number): Promise<void>;
}

export const FORM_TOKEN = /^[A-Za-z0-9_-]{24}$/;
export const newFormToken = () => randomBytes(18).toString('base64url');

/** How long a second post waits for the first one to finish before it is told to look later. */
const WAIT_MS = 5_000;
const POLL_MS = 50;

export type FormUse<T> = { first: true; value: T } | { first: false; result: string } | { first: false; busy: true };

/**
 * Runs `make` once per form token. `make` answers its value and the dashboard path a
 * repeat of the form is sent to. A claim lives as long as a session can (12 h): after that
 * no session can post the form anyway, its CSRF token being gone with it.
 *
 * When `make` is refused (`refused(error)`: a domain refusal, raised before anything was
 * written) the token is let go, so the corrected form can be sent again. Any other failure
 * (a database error halfway, a crash) keeps the claim unfinished: whatever was made stays
 * made once, and a repeat is told the outcome is unknown rather than making it again.
 */
export async function oncePerToken<T>(
  store: FormUseStore,
  clock: Clock,
  scope: { accountId: AccountId; sessionDigest: string; token: string },
  make: () => Promise<{ value: T; result: string }>,
  options: { refused: (error: unknown) => boolean; waitMs?: number },
): Promise<FormUse<T>> {
  // Real time, not the service clock: this is how long a browser is kept waiting.
  const deadline = Date.now() + (options.waitMs ?? WAIT_MS);
  for (;;) {
    const now = clock.now();
    if (await store.claim(scope.accountId, scope.token, scope.sessionDigest, now)) {
      await store.purge(now - SESSION_ABSOLUTE_MS);
      let made: { value: T; result: string };
      try {
        made = await make();
      } catch (error) {
        if (options.refused(error)) await store.release(scope.accountId, scope.token);
        throw error;
      }
      await store.finish(scope.accountId, scope.token, made.result);
      return { first: true, value: made.value };
    }
    const result = await store.result(scope.accountId, scope.token);
    if (typeof result === 'string') return { first: false, result };
    // Absent again: the first post failed and let go; claim it now. Null: still working.
    if (result === null && Date.now() >= deadline) return { first: false, busy: true };
    if (result === null) await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
