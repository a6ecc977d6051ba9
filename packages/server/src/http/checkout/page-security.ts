import { createHash } from 'node:crypto';
import type { FastifyReply } from 'fastify';

/**
 * Headers of every HTML page Obolus serves to shoppers. Scripts only from our own origin
 * (never inline), styles only by hash, nothing else loaded, no <base> and no form posts.
 */

/** The CSP source of one inline <style> element's exact text. */
export const styleHash = (css: string) => `'sha256-${createHash('sha256').update(css).digest('base64')}'`;

export interface CspOptions {
  styleHashes: string[];
  /** null: any page may frame this one; [] : none may. */
  frameAncestors: string[] | null;
  /** Origins this page may frame (the widget's 3-D Secure page, the hosted page's widget). */
  frameSources?: string[];
}

export function contentSecurityPolicy(options: CspOptions): string {
  const directives = [
    "default-src 'none'",
    "script-src 'self'",
    `style-src ${options.styleHashes.join(' ')}`,
    "connect-src 'self'",
    "img-src 'self' data:",
    `frame-src ${["'self'", ...(options.frameSources ?? [])].join(' ')}`,
    "form-action 'none'",
    "base-uri 'none'",
  ];
  if (options.frameAncestors !== null) {
    directives.push(`frame-ancestors ${options.frameAncestors.length ? options.frameAncestors.join(' ') : "'none'"}`);
  }
  return directives.join('; ');
}

export function sendPage(reply: FastifyReply, status: number, csp: string, html: string): FastifyReply {
  return reply
    .code(status)
    .header('Content-Security-Policy', csp)
    .header('X-Content-Type-Options', 'nosniff')
    .header('Referrer-Policy', 'same-origin')
    .header('Cache-Control', 'no-store')
    .type('text/html; charset=utf-8')
    .send(html);
}
