import { connect, createServer, type Socket } from 'node:net';

export interface Backend {
  host: string;
  port: number;
}

/**
 * A TCP proxy in the test's own process: the stable address of a failover (one backend, moved
 * with point(), as haproxy or PgBouncer would be in production) or a round-robin load balancer
 * (several; a backend that refuses a connection is passed over, as a health-checked balancer
 * would).
 */
export interface TcpProxy {
  host: string;
  port: number;
  /** New connections go to `backends` from now on; open ones are cut (haproxy's shutdown-sessions). */
  point(...backends: Backend[]): void;
  /**
   * A network partition: while on, nothing passes either way (open connections go silent, new
   * ones are accepted and hear nothing); turned off, the connections of before are gone, as
   * after a partition that outlasted TCP's patience.
   */
  partition(on: boolean): void;
  /** How many connections each backend was given, by `host:port`. */
  given(): Map<string, number>;
  close(): Promise<void>;
}

export async function startTcpProxy(backends: Backend[], listen = { host: '127.0.0.1', port: 0 }): Promise<TcpProxy> {
  let targets = backends;
  let next = 0;
  const open = new Set<Socket>();
  const pairs = new Set<[Socket, Socket]>();
  let partitioned = false;
  const given = new Map<string, number>();
  const track = (socket: Socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  };
  /** Tries each backend once, from the next in turn; the client is closed when none answers. */
  const relay = (client: Socket, tries: number) => {
    if (tries >= targets.length || client.destroyed) return client.destroy();
    const backend = targets[next++ % targets.length] as Backend;
    const upstream = connect(backend.port, backend.host);
    track(upstream);
    let connected = false;
    upstream.on('error', () => {
      if (!connected) relay(client, tries + 1);
      else client.destroy();
    });
    upstream.once('connect', () => {
      connected = true;
      const key = `${backend.host}:${backend.port}`;
      given.set(key, (given.get(key) ?? 0) + 1);
      client.pipe(upstream).pipe(client);
      client.resume();
      const pair: [Socket, Socket] = [client, upstream];
      pairs.add(pair);
      upstream.once('close', () => client.destroy());
      client.once('close', () => {
        upstream.destroy();
        pairs.delete(pair);
      });
    });
  };
  const server = createServer({ pauseOnConnect: true }, (client) => {
    track(client);
    client.on('error', () => client.destroy());
    if (!partitioned) relay(client, 0);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listen.port, listen.host, () => resolve());
  });
  const { port } = server.address() as { port: number };
  const cut = () => {
    for (const socket of open) socket.destroy();
  };
  return {
    host: listen.host,
    port,
    point: (...backends) => {
      targets = backends;
      cut();
    },
    partition: (on) => {
      partitioned = on;
      if (!on) return cut();
      for (const [client, upstream] of pairs) {
        client.unpipe(upstream);
        upstream.unpipe(client);
        client.pause();
        upstream.pause();
      }
    },
    given: () => new Map(given),
    close: async () => {
      cut();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
