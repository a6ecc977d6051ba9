import { expect } from 'vitest';
import type { CrashPointName } from '../../src/crash-points.ts';
import type { AccountId } from '../../src/ids.ts';
import { checkDelivered, checkLedger, settled } from './crash-checks.ts';
import { type Ledger, newLedger, retryLost, runOrders } from './crash-workload.ts';
import { type SecondProcess, startSecondProcess } from './second-process.ts';
import type { TestServer } from './server.ts';
import type { Receiver } from './webhook-receiver.ts';

/** How soon a restarted server must have settled attempts and redelivered events. */
export const SETTLE_WITHIN_MS = 15_000;
/** OBOLUS_TEST_RECOVERY_MS of the processes: sweeps, lookups, leases and key locks of 1 s. */
const RECOVERY_ENV = {
  OBOLUS_TEST_HOOKS: '1',
  OBOLUS_TEST_RECOVERY_MS: '1000',
  OBOLUS_WEBHOOKS_POLL_MS: '100',
  OBOLUS_WEBHOOKS_ALLOW_LOOPBACK: 'true',
};

export interface RunFigures {
  shopId: AccountId;
  ledger: Ledger;
  retried: number;
  settleMs: number;
  events: number;
  duplicates: number;
}

/**
 * Crash runs over `t`'s database: `obolus serve` processes with `env` (a live connector's
 * variables, say), every one killed by the end (`killAll`).
 */
export function crashRunner(t: TestServer, receiver: Receiver, env: Record<string, string> = {}) {
  const running = new Set<SecondProcess>();
  const start = async (more: Record<string, string>) => {
    const p = await startSecondProcess(t, { env: { ...RECOVERY_ENV, ...env, ...more } });
    running.add(p);
    return p;
  };

  /** One run: orders until the point fires, a restart on the same database, then every check. */
  const run = async (
    point: CrashPointName,
    nth: number,
    tag: string,
    mode: 'sandbox' | 'live' = 'sandbox',
    workers = 4,
  ): Promise<RunFigures> => {
    const shop = await t.newAccount();
    const endpoint = await t.call('POST', '/api/v1/webhook-endpoints', {
      key: shop.secretKey,
      body: { url: receiver.url, enabled_events: ['*'], mode },
    });
    expect(endpoint.status).toBe(200);
    const victim = await start({ OBOLUS_CRASH_AT: `${point}:${nth}` });
    const ledger = newLedger();
    await runOrders(t, victim, shop, ledger, { maxOrders: 40, workers, tag, mode });
    // Webhooks are still going out: the delivery point may fire after the last order.
    const deadline = Date.now() + 10_000;
    while (victim.child.signalCode === null && victim.child.exitCode === null && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(victim.child.signalCode, `the process was not killed at ${point}:${nth}`).toBe('SIGKILL');
    expect(victim.output()).toContain(`crash point ${point}:${nth} reached`);
    running.delete(victim);

    const survivor = await start({});
    try {
      const retried = await retryLost(survivor.url, shop, ledger);
      const settleMs = await settled(t, shop, SETTLE_WITHIN_MS);
      await checkLedger(t, survivor.url, shop, ledger);
      const delivery = await checkDelivered(survivor.url, shop, receiver, SETTLE_WITHIN_MS);
      return { shopId: shop.id, ledger, retried, settleMs, ...delivery };
    } finally {
      await survivor.stop();
      running.delete(survivor);
    }
  };

  const killAll = async () => {
    for (const p of running) await p.kill();
  };
  return { run, killAll };
}

/** The figure line of several runs of one point. */
export function summary(runs: RunFigures[]): string {
  const sum = (f: (r: RunFigures) => number) => runs.reduce((total, r) => total + f(r), 0);
  const acknowledged = sum((r) => r.ledger.intents.size + r.ledger.confirms.size + r.ledger.refunds.length);
  const maxSettle = Math.max(...runs.map((r) => r.settleMs));
  return (
    `${runs.length} run(s): ${acknowledged} acknowledged writes all found once, ` +
    `${sum((r) => r.ledger.unanswered)} requests cut off (${sum((r) => r.retried)} retried with their key answered 200), ` +
    `0 left pending (settled within ${maxSettle.toFixed(0)} ms of the restart's retries), ` +
    `${sum((r) => r.events)} events all delivered (${sum((r) => r.duplicates)} redelivered)`
  );
}
