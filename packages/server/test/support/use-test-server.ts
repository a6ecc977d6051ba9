import { beforeAll } from 'vitest';
import type { Engine } from '../../src/store/database.ts';
import { lateBound, useStarted } from './hooks.ts';
import { useLiveConnector } from './live-connector.ts';
import { startTestServer, type TestAccount, type TestServer, type TestServerOptions } from './server.ts';

/**
 * What `useTestServer` is given: startTestServer's options; `withAccount`: an account made as
 * soon as the server runs (true, or the account's name); `withLiveConnector`: a live connector
 * (useLiveConnector), for tests that need live intents but never pay them (decision 0199).
 */
export type UseTestServerOptions = TestServerOptions & { withAccount?: true | string; withLiveConnector?: true };

/** `t`: the server of a describe block; `shop`: its first account, with `withAccount`. */
export interface UsedTestServer {
  t: TestServer;
  shop: TestAccount;
}

/**
 * For a describe block (decision 0290): a test server of `engine`, started before its tests
 * (beforeAll) and closed after them (afterAll); the block does not close it itself. `t` and
 * `shop` are kept in constants while the block is collected: each of their members reads the
 * running server or account when used, in a test or a hook.
 */
export function useTestServer(engine: Engine, options: UseTestServerOptions = {}): UsedTestServer {
  const { withAccount, withLiveConnector, ...serverOptions } = options;
  const live = withLiveConnector ? useLiveConnector() : undefined;
  const t = useStarted(
    'useTestServer: the server',
    () =>
      startTestServer(
        engine,
        live
          ? { ...serverOptions, config: { ...serverOptions.config, liveConnector: live.liveConnector } }
          : serverOptions,
      ),
    (server) => server.close(),
  );
  const shop = useAccount(t, withAccount);
  return { t, shop };
}

/**
 * For a describe block, after the hook that starts `t`: an account of `t` made before the
 * block's tests (`withAccount`: true, or its name), standing for it as `t` does for the server.
 * Without `withAccount`, none is made, and reading one throws.
 */
export function useAccount(t: TestServer, withAccount?: true | string): TestAccount {
  let account: TestAccount | undefined;
  if (withAccount !== undefined) {
    beforeAll(async () => {
      account = await t.newAccount(withAccount === true ? undefined : withAccount);
    });
  }
  return lateBound(() => {
    if (account) return account;
    throw new Error(
      withAccount === undefined
        ? 'no account was asked for (withAccount)'
        : 'the account is made in beforeAll: use it in a test or a hook',
    );
  });
}
