import { afterAll, beforeAll } from 'vitest';
import type { Engine } from '../../src/store/database.ts';
import { startTestServer, type TestAccount, type TestServer, type TestServerOptions } from './server.ts';

/**
 * What `useTestServer` is given: startTestServer's options, as they are or made when the server
 * starts (a function, for options that need something a hook before made, e.g. a live
 * connector), and `withAccount`: an account made as soon as the server runs (true, or its name).
 */
export type UseTestServerOptions = TestServerOptions & { withAccount?: true | string };

/** `t`: the server of a describe block; `shop`: its first account, with `withAccount`. */
export interface UsedTestServer {
  t: TestServer;
  shop: TestAccount;
}

/**
 * For a describe block (decision 0290): a test server of `engine`, started before its tests
 * (beforeAll) and closed after them (afterAll). Hooks the file registers after this call run
 * after the server started and end before it closes (Vitest runs after-hooks in reverse).
 *
 * `t` and `shop` can be kept in constants while the block is collected: each of their members
 * reads the running server or account when used, in a test or a hook; before the server
 * started, reading one throws. `shop` is there only with `withAccount`.
 */
export function useTestServer(
  engine: Engine,
  options: UseTestServerOptions | (() => UseTestServerOptions | Promise<UseTestServerOptions>) = {},
): UsedTestServer {
  let server: TestServer | undefined;
  let account: TestAccount | undefined;
  let withAccount = false;
  beforeAll(async () => {
    const { withAccount: name, ...serverOptions } = typeof options === 'function' ? await options() : options;
    server = await startTestServer(engine, serverOptions);
    withAccount = name !== undefined;
    if (name !== undefined) account = await server.newAccount(name === true ? undefined : name);
  });
  afterAll(async () => {
    await server?.close();
    server = undefined;
    account = undefined;
  });
  const running = (): TestServer => {
    if (!server)
      throw new Error('useTestServer: the server runs from beforeAll to afterAll; read it in a test or hook');
    return server;
  };
  const made = (): TestAccount => {
    if (!account) {
      throw new Error(
        withAccount || !server
          ? 'useTestServer: the account is made in beforeAll; read it in a test or hook'
          : 'useTestServer: no account was asked for (withAccount)',
      );
    }
    return account;
  };
  return {
    t: {
      engine,
      get url() {
        return running().url;
      },
      get server() {
        return running().server;
      },
      get database() {
        return running().database;
      },
      logs: () => running().logs(),
      newAccount: (name) => running().newAccount(name),
      call: (method, path, callOptions) => running().call(method, path, callOptions),
      // A test that closes the server itself: afterAll has nothing left to close.
      close: () => {
        const closing = running();
        server = undefined;
        return closing.close();
      },
    },
    shop: {
      get id() {
        return made().id;
      },
      get secretKey() {
        return made().secretKey;
      },
      get clientKey() {
        return made().clientKey;
      },
    },
  };
}
