/**
 * The OpenAPI document as the /docs page shows it: the committed document names its servers
 * `{base_url}` and `{app_url}` (any installation); the page of a running Obolus shows that
 * installation's own addresses, and links the error reference it serves (issue 29).
 */
// biome-ignore lint/suspicious/noExplicitAny: plain JSON of OpenAPI's shape, copied and completed
type Json = Record<string, any>;

export interface ServedAddresses {
  baseUrl: string;
  appUrl: string;
}

export function documentForPage(document: Json, addresses: ServedAddresses): Json {
  const page = structuredClone(document);
  const resolve = (text: string) =>
    text.replaceAll('{base_url}', addresses.baseUrl).replaceAll('{app_url}', addresses.appUrl);
  page.servers = [{ url: addresses.baseUrl, description: 'This Obolus (OBOLUS_BASE_URL)' }];
  for (const item of Object.values(page.paths ?? {}) as Json[]) {
    if (item.servers) item.servers = [{ url: addresses.appUrl, description: 'This Obolus (OBOLUS_APP_URL)' }];
  }
  for (const tag of page.tags ?? [])
    if (typeof tag.description === 'string') tag.description = resolve(tag.description);
  page.info.description = resolve(String(page.info.description)).replace(
    'docs/errors.md',
    '[the error reference](/docs/errors) (docs/errors.md)',
  );
  return page;
}
