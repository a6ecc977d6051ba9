import type { WebhookEndpoint } from './endpoints.ts';

const seconds = (ms: number | null) => (ms === null ? null : Math.floor(ms / 1000));

/** The merchant-visible endpoint (API answers and the webhook_endpoint.disabled event). Never the secret. */
export function webhookEndpointView(endpoint: WebhookEndpoint) {
  return {
    id: endpoint.id,
    object: 'webhook_endpoint' as const,
    url: endpoint.url,
    mode: endpoint.mode,
    description: endpoint.description,
    enabled_events: endpoint.enabledEvents,
    enabled: endpoint.enabled,
    disabled_reason: endpoint.disabledReason,
    failing_since: seconds(endpoint.failingSince),
    previous_secret_expires_at: endpoint.previousSecret === null ? null : seconds(endpoint.previousSecretExpiresAt),
    created: seconds(endpoint.createdAt) as number,
    updated: seconds(endpoint.updatedAt) as number,
  };
}
export type WebhookEndpointView = ReturnType<typeof webhookEndpointView>;
