import { DAY } from '../clock.ts';
import { type AccountId, timeOrderedBase62 } from '../ids.ts';
import { clientNetwork } from './client-network.ts';

/** What the audit trail records (issue 25 item 6, decision 0205). */
export const AUDIT_ACTIONS = [
  'dashboard.sign_in',
  'dashboard.sign_in_failed',
  'dashboard.locked',
  'dashboard.sign_out',
  'dashboard.password_confirmed',
  'secret_key.rolled',
  'webhook_secret.rolled',
  'webhook_endpoint.created',
  'webhook_endpoint.deleted',
  'allowed_origins.changed',
  'refund.created',
  'password.set',
  'sessions.ended',
  'master_key.rotated',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];
export type AuditOutcome = 'success' | 'failure' | 'refused';

/** Kept at least this long by default (PCI DSS 10.5.1: one year); OBOLUS_AUDIT_RETENTION_DAYS. */
export const DEFAULT_AUDIT_RETENTION_DAYS = 400;
export const AUDIT_RETENTION_MIN_DAYS = 365;

export interface AuditEvent {
  id: string;
  /** Null for what concerns no one account (the master key). */
  accountId: AccountId | null;
  action: AuditAction;
  /** `session:<first 8 of its digest>`, `key:sk_…<last 4>`, `cli`, or `anonymous`. */
  actor: string;
  clientNetwork: string | null;
  outcome: AuditOutcome;
  /** Non-secret details only: a key's last 4, an endpoint id, an origin, an email typed. */
  detail: Record<string, string | number> | null;
  createdAt: number;
}

export interface AuditStore {
  /** Appends; there is no update or delete but pruning past the retention. */
  record(event: AuditEvent): Promise<void>;
  /** Newest first, from `since` on, at most `limit`. */
  list(accountId: AccountId, options: { since?: number; limit: number }): Promise<AuditEvent[]>;
  pruneBefore(time: number): Promise<number>;
}

/**
 * Who does an action and from where: handed to the action so that its audit event is written
 * by the action's own database transaction (decision 0205).
 */
export interface AuditBy {
  actor: string;
  clientIp?: string | null;
}

export const actorOfSession = (digest: string) => `session:${digest.slice(0, 8)}`;
export const actorOfKey = (last4: string) => `key:sk_…${last4}`;
export const CLI_ACTOR = 'cli';

export function auditEvent(
  now: number,
  fields: {
    accountId: AccountId | null;
    action: AuditAction;
    actor: string;
    clientIp?: string | null;
    outcome?: AuditOutcome;
    detail?: Record<string, string | number>;
  },
): AuditEvent {
  return {
    id: `aud_${timeOrderedBase62(now, 24)}`,
    accountId: fields.accountId,
    action: fields.action,
    actor: fields.actor,
    clientNetwork: fields.clientIp ? clientNetwork(fields.clientIp) : null,
    outcome: fields.outcome ?? 'success',
    detail: fields.detail ?? null,
    createdAt: now,
  };
}

export const auditRetentionMs = (days: number) => days * DAY;
