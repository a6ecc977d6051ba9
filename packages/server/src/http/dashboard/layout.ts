import { newFormToken } from '../../domain/dashboard/form-uses.ts';
import type { Session } from '../../domain/dashboard/sessions.ts';
import type { Signed, Theme } from './context.ts';
import { COPY_SCRIPT_PATH } from './copy-link.ts';
import { html, Markup } from './markup.ts';
import { searchBox } from './search.ts';
import { DASHBOARD_CSS } from './style.ts';

export const SECTIONS = [
  { path: '/dashboard', label: 'Home' },
  { path: '/dashboard/payments', label: 'Payments' },
  { path: '/dashboard/products', label: 'Products' },
  { path: '/dashboard/developer', label: 'Developer' },
] as const;

const themeAttr = (theme: Theme) => (theme === 'system' ? '' : theme);
const NEXT_THEME: Record<Theme, Theme> = { system: 'dark', dark: 'light', light: 'system' };
const THEME_LABEL: Record<Theme, string> = { system: 'Theme: system', dark: 'Theme: dark', light: 'Theme: light' };

/** The hidden CSRF field every state-changing form of a session carries. */
export const csrfField = (session: Session) => html`<input type="hidden" name="csrf" value="${session.csrfToken}">`;

/** A POST form with its CSRF token. */
export function postForm(signed: Signed, action: string, inner: Markup, className = 'inline'): Markup {
  return html`<form method="post" action="${action}" class="${className}">${csrfField(signed.session)}${inner}</form>`;
}

/**
 * A POST form that makes something: besides the CSRF token it carries a one-time token, so
 * that posting it twice makes one thing (docs/decisions/0141, routes.ts postCreate).
 */
export function createForm(signed: Signed, action: string, inner: Markup, className = 'inline'): Markup {
  return postForm(signed, action, html`<input type="hidden" name="once" value="${newFormToken()}">${inner}`, className);
}

function document(theme: Theme, title: string, body: Markup): Markup {
  const attr = themeAttr(theme);
  return html`<!doctype html>
<html lang="en"${attr ? html` data-theme="${attr}"` : ''}><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Obolus dashboard</title>
<style>${new Markup(DASHBOARD_CSS)}</style>
<script src="${COPY_SCRIPT_PATH}" defer></script></head>
<body>${body}<p id="copy-status" class="toast" role="status"></p></body></html>`;
}

function themeToggle(theme: Theme, back: string, session?: Session): Markup {
  return html`<form method="post" action="/dashboard/theme" class="inline">${session ? csrfField(session) : ''}
<input type="hidden" name="theme" value="${NEXT_THEME[theme]}"><input type="hidden" name="back" value="${back}">
<button class="secondary" type="submit" title="Switch the colour theme">${THEME_LABEL[theme]}</button></form>`;
}

function header(signed: Signed, current: string): Markup {
  const { session } = signed;
  const other = session.mode === 'sandbox' ? 'live' : 'sandbox';
  const links = SECTIONS.map(
    (s) => html`<li><a href="${s.path}"${current === s.path ? html` aria-current="page"` : ''}>${s.label}</a></li>`,
  );
  return html`<header><span class="brand"><span class="name">Obolus · ${signed.account.name}</span><span class="badge">${session.mode}</span></span>
<nav aria-label="Dashboard"><ul>${links}</ul></nav>${searchBox()}
<div class="controls">${postForm(signed, '/dashboard/mode', html`<input type="hidden" name="mode" value="${other}"><input type="hidden" name="back" value="${current}"><button class="secondary" type="submit">Show ${other} data</button>`)}
${themeToggle(signed.theme, current, session)}
${postForm(signed, '/dashboard/sign-out', html`<button class="secondary" type="submit">Sign out</button>`)}</div>
</header>`;
}

/** Sandbox data is never mistaken for real money: a banner on every sandbox page. */
function sandboxBanner(signed: Signed): Markup {
  if (signed.session.mode !== 'sandbox') return html``;
  return html`<div class="banner sandbox" role="note"><strong>Sandbox</strong>: test data, paid with test cards. No money moves.</div>`;
}

function inactiveBanner(signed: Signed): Markup {
  if (signed.account.status === 'active') return html``;
  return html`<div class="banner" role="alert"><strong>This account is inactive.</strong> You can look at your payments and settings, but payments, refunds, chargebacks and key rolls are refused. Contact the operator of this Obolus to reactivate it.</div>`;
}

/** A signed-in page: header with navigation, mode switch, theme toggle and sign-out, then `body`. */
export function page(signed: Signed, options: { title: string; section: string; body: Markup }): string {
  return document(
    signed.theme,
    options.title,
    html`${header(signed, options.section)}${sandboxBanner(signed)}${inactiveBanner(signed)}<main><h1>${options.title}</h1>${options.body}</main>`,
  ).text;
}

/** A page with no session: sign-in and its errors. */
export function publicPage(theme: Theme, title: string, body: Markup): string {
  return document(
    theme,
    title,
    html`<header><span class="brand">Obolus</span>${themeToggle(theme, '/dashboard')}</header><main>${body}</main>`,
  ).text;
}
