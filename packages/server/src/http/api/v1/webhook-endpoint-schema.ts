import { type Static, Type } from 'typebox';
import { webhookEndpointView } from '../../../domain/webhooks/endpoint-view.ts';
import { SUBSCRIBABLE, type WebhookEndpoint } from '../../../domain/webhooks/endpoints.ts';
import { URL_MAX_LENGTH } from '../../../domain/webhooks/url-policy.ts';
import { ModeEnum, nullable } from './schema-parts.ts';

export const EndpointUrl = Type.String({ minLength: 1, maxLength: URL_MAX_LENGTH });
export const EndpointDescription = Type.String({ maxLength: 500 });
/** Checked against the catalogue by the domain, which names the faulty item (enabled_events[2]). */
export const EnabledEvents = Type.Array(Type.String({ maxLength: 64 }), { minItems: 1, maxItems: SUBSCRIBABLE.length });
export const EndpointParams = Type.Object({ id: Type.String({ maxLength: 64 }) });

const endpointFields = {
  id: Type.String(),
  object: Type.Literal('webhook_endpoint'),
  url: Type.String(),
  mode: ModeEnum,
  description: nullable(Type.String()),
  enabled_events: Type.Array(Type.Enum([...SUBSCRIBABLE])),
  enabled: Type.Boolean(),
  disabled_reason: nullable(
    Type.Enum(['requested', 'failing'], { description: 'requested (by the merchant) or failing (3 days of failures)' }),
  ),
  failing_since: nullable(Type.Integer({ description: 'Unix seconds of the first failure since the last success' })),
  previous_secret_expires_at: nullable(
    Type.Integer({ description: 'Unix seconds: until then the previous secret signs as well' }),
  ),
  created: Type.Integer({ description: 'Unix seconds' }),
  updated: Type.Integer({ description: 'Unix seconds' }),
};

/** Retrieve, list and update answer with this: the secret is shown only on creation and roll. */
export const WebhookEndpointOut = Type.Object(endpointFields);
export const WebhookEndpointWithSecretOut = Type.Object({
  ...endpointFields,
  // Shown once: an idempotent replay (Idempotent-Replayed: true) answers without it (decision 0073).
  secret: Type.Optional(
    Type.String({
      description:
        'whsec_…: verifies the webhook-signature header. Shown once: absent from an idempotent replay (Idempotent-Replayed: true).',
    }),
  ),
});
export type WebhookEndpointOut = Static<typeof WebhookEndpointOut>;

export const toWebhookEndpointOut = (endpoint: WebhookEndpoint): WebhookEndpointOut => webhookEndpointView(endpoint);
export const withSecret = (endpoint: WebhookEndpoint) => ({
  ...webhookEndpointView(endpoint),
  secret: endpoint.secret,
});

export const ListQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
    starting_after: Type.Optional(Type.String({ maxLength: 64 })),
  },
  { additionalProperties: false },
);
