import { eventView, type StoredEvent } from '../../domain/events.ts';
import { html, type Markup } from './markup.ts';

/** An event's body exactly as webhooks deliver it and the events API answers it, indented. */
export const eventJson = (event: StoredEvent) => JSON.stringify(eventView(event), null, 2);

/** An event's type that opens onto its JSON (no script: a <details>). */
export const eventWithJson = (event: StoredEvent): Markup =>
  html`<details class="json"><summary>${event.type}</summary><pre tabindex="0" aria-label="JSON of ${event.id}">${eventJson(event)}</pre></details>`;
