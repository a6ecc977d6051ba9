import type { FastifyRequest } from 'fastify';
import { page, publicPage } from './layout.ts';
import { html, type Markup } from './markup.ts';

/** An error as a page of the dashboard (with its navigation when signed in) and a way back. */
export function errorPage(request: FastifyRequest, title: string, message: string, extra: Markup = html``): string {
  const body = html`<p class="notice error" role="alert">${message}</p>${extra}<p><a href="/dashboard">Back to the dashboard</a></p>`;
  if (request.dashboard) return page(request.dashboard, { title, section: '', body });
  return publicPage(request.theme, title, html`<h1>${title}</h1>${body}`);
}
