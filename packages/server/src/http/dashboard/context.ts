import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Account } from '../../domain/accounts.ts';
import type { Session } from '../../domain/dashboard/sessions.ts';
import { ApiError } from '../../domain/errors.ts';

export type Theme = 'system' | 'light' | 'dark';

/** What every signed-in page knows: who, which mode, which theme. */
export interface Signed {
  account: Account;
  session: Session;
  theme: Theme;
}

declare module 'fastify' {
  interface FastifyRequest {
    dashboard: Signed | null;
    theme: Theme;
  }
}

export const SESSION_COOKIE = 'obolus_session';
export const THEME_COOKIE = 'obolus_theme';

export function cookieOf(request: FastifyRequest, name: string): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** A signed-in page's context; routes behind `signedIn` are never reached without one. */
export function signedOf(request: FastifyRequest): Signed {
  if (!request.dashboard) throw new Error('dashboard route reached without a session');
  return request.dashboard;
}

/** Money-moving actions of an inactive account (spec §5 rule 5) are refused, with why. */
export function requireActive(signed: Signed): void {
  if (signed.account.status !== 'active') {
    throw new ApiError(
      'account_inactive',
      'This account is inactive: it can look at its data but cannot take payments, refund or roll keys. Contact the operator of this Obolus to reactivate it.',
    );
  }
}

/** Form fields arrive as strings; a missing one is ''. */
export function field(request: FastifyRequest, name: string): string {
  const body = request.body as Record<string, string> | undefined;
  const value = body?.[name];
  return typeof value === 'string' ? value : '';
}

export const seeOther = (reply: FastifyReply, location: string) => reply.code(303).header('Location', location).send();

/** A refusal of the request itself (forged, stale, signed out), as opposed to a domain error. */
export class Refusal extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}
