import { DAY } from '../clock.ts';
import type { AccountId } from '../ids.ts';
import type { Account } from './accounts.ts';
import { ApiError, invalidParam } from './errors.ts';
import { EVENT_TYPES, type StoredEvent } from './events.ts';
import type { Page } from './intents.ts';

/**
 * Events stay readable for 30 days at least; the newest event of each object is kept
 * longer, because the next event of that object numbers its `sequence` after it.
 */
export const EVENT_RETENTION_MS = 30 * DAY;

export interface EventFilter {
  /** Any of these types. */
  types?: string[];
  objectId?: string;
}

/** The events API's view of the outbox. Every lookup is scoped to the account. */
export interface EventFeed {
  find(accountId: AccountId, id: string): Promise<StoredEvent | undefined>;
  /** Newest first (created, then id), as every list (docs/decisions/0005). */
  list(accountId: AccountId, limit: number, filter: EventFilter, after?: StoredEvent): Promise<Page<StoredEvent>>;
  /** Deletes what is past retention, with its deliveries and attempts; answers how many events went. */
  pruneBefore(cutoff: number): Promise<number>;
}

const FAMILIES = [...new Set(EVENT_TYPES.map((type) => `${type.split('.')[0]}.*`))];

/** `payment_intent.succeeded` is itself; `payment_intent.*` is every type of the family. */
function typesOf(type: string): string[] {
  if ((EVENT_TYPES as readonly string[]).includes(type)) return [type];
  if (FAMILIES.includes(type)) return EVENT_TYPES.filter((t) => t.startsWith(type.slice(0, -1)));
  throw invalidParam('type', `type must be an event type or one of: ${FAMILIES.join(', ')}.`);
}

export async function retrieveEvent(feed: EventFeed, account: Account, id: string): Promise<StoredEvent> {
  const event = await feed.find(account.id, id);
  if (!event) throw new ApiError('resource_missing', `No such event: '${id}'`, 'id');
  return event;
}

export async function listEvents(
  feed: EventFeed,
  account: Account,
  options: { limit: number; startingAfter?: string; type?: string; objectId?: string },
): Promise<Page<StoredEvent>> {
  const filter: EventFilter = {};
  if (options.type !== undefined) filter.types = typesOf(options.type);
  if (options.objectId !== undefined) filter.objectId = options.objectId;
  let after: StoredEvent | undefined;
  if (options.startingAfter !== undefined) {
    after = await feed.find(account.id, options.startingAfter);
    if (!after) throw new ApiError('resource_missing', `No such event: '${options.startingAfter}'`, 'starting_after');
  }
  return feed.list(account.id, options.limit, filter, after);
}
