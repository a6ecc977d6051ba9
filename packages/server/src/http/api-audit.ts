import type { FastifyRequest } from 'fastify';
import { type AuditAction, type AuditBy, actorOfKey, auditEvent } from '../domain/audit.ts';
import { accountOf } from './plugins/secret-key-auth.ts';
import type { Services } from './services.ts';

/** The secret key a request was made with, as its audit actor: its last 4 only. */
function keyActor(request: FastifyRequest): string {
  const token = /^Bearer\s+(sk_\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
  return token ? actorOfKey(token.slice(-4)) : 'key';
}

/** The secret key of a request as the actor of an action that writes its own audit event. */
export function apiAuditBy(request: FastifyRequest): AuditBy {
  return { actor: keyActor(request), clientIp: request.ip };
}

/** An action of the merchant API in the audit trail (after it committed; decision 0205). */
export async function auditApi(
  services: Services,
  request: FastifyRequest,
  action: AuditAction,
  detail?: Record<string, string | number>,
): Promise<void> {
  await services.repos.audit.record(
    auditEvent(services.clock.now(), {
      accountId: accountOf(request).id,
      action,
      actor: keyActor(request),
      clientIp: request.ip,
      ...(detail ? { detail } : {}),
    }),
  );
}
