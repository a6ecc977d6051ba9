import { type RawBuilder, sql } from 'kysely';
import type { SendCaps } from '../../domain/webhooks/deliveries.ts';

/**
 * The ids of the due deliveries a dispatcher may lease now, fair across accounts (decision 0072):
 * - an endpoint never has more than `caps.perEndpoint` deliveries leased at once (counting the
 *   leases other dispatchers hold), so a slow endpoint holds at most that many slots;
 * - nor an account more than `caps.perAccount`;
 * - among what is left, every account's oldest due delivery comes before any account's
 *   second (round robin by account), so a merchant with a backlog does not delay another.
 */
export function fairDueDeliveryIds(
  now: number,
  limit: number,
  caps: SendCaps,
  postgres: boolean,
): RawBuilder<{ id: string }> {
  if (!postgres)
    return sql<{
      id: string;
    }>`select id from (${fairDue(now, limit, caps)}) f order by f.account_slot, f.next_attempt_at, f.id limit ${limit}`;
  // Rows another dispatcher is claiming right now are skipped, not waited for; the candidates
  // reach past `limit` so that a dispatcher claiming beside another still finds work.
  return sql<{ id: string }>`
    select d.id from webhook_deliveries d
    join (${fairDue(now, limit * 4 + 100, caps)}) f on f.id = d.id
    order by f.account_slot, f.next_attempt_at, f.id
    limit ${limit}
    for update of d skip locked`;
}

/** Due deliveries within the caps with their account slot, best first, at most `candidates`. */
function fairDue(now: number, candidates: number, caps: SendCaps): RawBuilder<unknown> {
  return sql`
    with leased as (
      select account_id, endpoint_id, count(*) as n
      from webhook_deliveries
      where status = 'pending' and locked_until > ${now}
      group by account_id, endpoint_id
    ),
    due as (
      select d.id, d.account_id, d.next_attempt_at,
        row_number() over (partition by d.endpoint_id order by d.next_attempt_at, d.id)
          + coalesce((select sum(l.n) from leased l where l.endpoint_id = d.endpoint_id), 0) as endpoint_slot
      from webhook_deliveries d
      join webhook_endpoints e on e.id = d.endpoint_id and e.enabled = 1
      where d.status = 'pending' and d.next_attempt_at <= ${now}
        and (d.locked_until is null or d.locked_until <= ${now})
    ),
    ranked as (
      select due.id, due.next_attempt_at,
        row_number() over (partition by due.account_id order by due.next_attempt_at, due.id)
          + coalesce((select sum(l.n) from leased l where l.account_id = due.account_id), 0) as account_slot
      from due
      where due.endpoint_slot <= ${caps.perEndpoint}
    )
    select id, account_slot, next_attempt_at from ranked
    where account_slot <= ${caps.perAccount}
    order by account_slot, next_attempt_at, id
    limit ${candidates}`;
}
