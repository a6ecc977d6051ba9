import { describe, expect, it } from 'vitest';
import { ENGINES } from './support/engines.ts';
import { useSecondProcess } from './support/second-process.ts';
import { useTestServer } from './support/use-test-server.ts';

/** Every answered write is committed first: a SIGKILL mid-load loses nothing anyone was told about. */
describe.each(ENGINES)('a server killed during the create load (%s)', (engine) => {
  const { t, shop } = useTestServer(engine, { config: { webhooksPollMs: 0 }, withAccount: true });
  const victim = useSecondProcess(t);

  it('loses no acknowledged intent', async () => {
    const acknowledged: string[] = [];
    let killed = false;
    const client = async () => {
      while (!killed) {
        try {
          const res = await fetch(`${victim.url}/api/v1/payment-intents`, {
            method: 'POST',
            headers: { authorization: `Bearer ${shop.secretKey}`, 'content-type': 'application/json' },
            body: JSON.stringify({ amount: 700, currency: 'USD', mode: 'sandbox' }),
          });
          if (res.status === 200) acknowledged.push(((await res.json()) as { id: string }).id);
        } catch {
          // the connection died with the server: not acknowledged, so not owed
        }
      }
    };
    const clients = Array.from({ length: 20 }, client);
    while (acknowledged.length < 100) await new Promise((r) => setTimeout(r, 5));
    await victim.kill();
    killed = true;
    await Promise.all(clients);

    expect(acknowledged.length).toBeGreaterThanOrEqual(100);
    const stored = await t.server.services.database.db
      .selectFrom('payment_intents')
      .select('id')
      .where('account_id', '=', shop.id)
      .execute();
    const ids = new Set(stored.map((row) => row.id));
    expect(acknowledged.filter((id) => !ids.has(id))).toEqual([]);
  }, 60_000);
});
