import { isIP } from 'node:net';

/**
 * An acquirer's API base from OBOLUS_<NAME>_API_BASE: https://, or http:// to a loopback
 * double for development and tests. Errors name the variable only.
 */
export function apiBaseOf(name: string, text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`${name} must be an absolute https:// URL`);
  }
  if (url.username || url.password || url.search || url.hash || url.pathname !== '/') {
    throw new Error(`${name} must be a scheme, host and port only (no path, query or credentials)`);
  }
  if (url.protocol === 'http:' && !isLoopback(url.hostname)) {
    throw new Error(`${name} may use http:// only for a loopback address (a local double)`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new Error(`${name} must use https://`);
  }
  return url;
}

function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1';
}
