import type { FastifyRequest } from 'fastify';
import { type AuditBy, actorOfKey } from '../domain/audit.ts';

/** The secret key a request was made with, as its audit actor: its last 4 only. */
function keyActor(request: FastifyRequest): string {
  const token = /^Bearer\s+(sk_\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
  return token ? actorOfKey(token.slice(-4)) : 'key';
}

/** The secret key of a request as the actor of an action that writes its own audit event. */
export function apiAuditBy(request: FastifyRequest): AuditBy {
  return { actor: keyActor(request), clientIp: request.ip };
}
