import { execFile, execFileSync } from 'node:child_process';
import { appendFileSync, chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './free-port.ts';

const run = promisify(execFile);
const BIN = '/usr/lib/postgresql/15/bin';

/**
 * A PostgreSQL cluster of a test's own (initdb, its own port, folder and socket), for tests that
 * crash, restart or fail over the database: never the machine's shared server, which other test
 * files use at the same time. Root runs the binaries as `postgres`, as Debian's packages do.
 */
export interface PrivateCluster {
  port: number;
  /** Where its socket is, and its data folder's parent. */
  dir: string;
  /** A URL to its `postgres` database over TCP, at `host` (127.0.0.1 unless it listens elsewhere). */
  url(host?: string): string;
  start(): Promise<void>;
  /** `pg_ctl stop -m immediate`: the server processes are killed, as in a crash. */
  crash(): Promise<void>;
  /** A synchronous streaming replica (pg_basebackup -R) on a port of its own, running. */
  replica(): Promise<PrivateCluster>;
  /** `pg_ctl promote`: a replica becomes a primary. */
  promote(): Promise<void>;
  /** One SQL statement over its socket. */
  query<T extends pg.QueryResultRow = pg.QueryResultRow>(text: string): Promise<T[]>;
  /** Stops it (and its replicas) at once and deletes its folder. */
  remove(): Promise<void>;
}

export interface ClusterOptions {
  /** listen_addresses; 127.0.0.1 by default. */
  listen?: string;
}

const clusters = new Set<{ data: string; dir: string }>();
// A test process that ends without remove() (a crash, a timeout) still leaves no server behind.
process.once('exit', () => {
  for (const { data, dir } of clusters) {
    try {
      execFileSync('runuser', ['-u', 'postgres', '--', `${BIN}/pg_ctl`, '-D', data, '-m', 'immediate', 'stop'], {
        stdio: 'ignore',
      });
    } catch {}
    rmSync(dir, { recursive: true, force: true });
  }
});

const asPostgres = (command: string, args: string[]) =>
  run('runuser', ['-u', 'postgres', '--', `${BIN}/${command}`, ...args], { timeout: 60_000 });

function postgresIds(): { uid: number; gid: number } {
  const [uid, gid] = ['-u', '-g'].map((flag) => Number(execFileSync('id', [flag, 'postgres']).toString().trim()));
  return { uid: uid as number, gid: gid as number };
}

/** initdb, configured and started. */
export async function startPrivateCluster(options: ClusterOptions = {}): Promise<PrivateCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'obolus-pg-'));
  const { uid, gid } = postgresIds();
  chownSync(dir, uid, gid);
  const data = join(dir, 'data');
  await asPostgres('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync']);
  const port = await freePort();
  configure(data, dir, port, options.listen ?? '127.0.0.1');
  appendFileSync(join(data, 'pg_hba.conf'), 'host all all 0.0.0.0/0 trust\n');
  const cluster = clusterAt(dir, data, port, options);
  await cluster.start();
  return cluster;
}

function configure(data: string, dir: string, port: number, listen: string): void {
  appendFileSync(
    join(data, 'postgresql.conf'),
    [
      `port = ${port}`,
      `listen_addresses = '${listen}'`,
      `unix_socket_directories = '${dir}'`,
      'shared_buffers = 16MB',
      'max_connections = 60',
      'max_wal_senders = 4',
      'wal_level = replica',
      'logging_collector = off',
      '',
    ].join('\n'),
  );
}

function clusterAt(dir: string, data: string, port: number, options: ClusterOptions): PrivateCluster {
  const entry = { data, dir };
  clusters.add(entry);
  const replicas: PrivateCluster[] = [];
  const self: PrivateCluster = {
    port,
    dir,
    url: (host = '127.0.0.1') => `postgres://postgres@${host}:${port}/postgres`,
    start: async () => {
      await asPostgres('pg_ctl', ['-D', data, '-l', join(dir, `${port}.log`), '-w', '-t', '60', 'start']);
    },
    crash: async () => {
      await asPostgres('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
    },
    replica: async () => {
      const replicaData = join(dir, `replica-${replicas.length + 1}`);
      await asPostgres('pg_basebackup', [
        '-h',
        dir,
        '-p',
        String(port),
        '-U',
        'postgres',
        '-D',
        replicaData,
        '-R',
        '-X',
        'stream',
        '-c',
        'fast',
      ]);
      const replicaPort = await freePort();
      configure(replicaData, dir, replicaPort, options.listen ?? '127.0.0.1');
      const replica = clusterAt(dir, replicaData, replicaPort, options);
      replicas.push(replica);
      await replica.start();
      // Synchronous: a commit the primary acknowledges is on the replica too, so a promotion
      // loses no acknowledged write (what Patroni's synchronous_mode and managed HA provide).
      await self.query(`alter system set synchronous_standby_names = '*'`);
      await self.query('select pg_reload_conf()');
      for (const end = Date.now() + 30_000; ; ) {
        const rows = await self.query<{ sync_state: string }>('select sync_state from pg_stat_replication');
        if (rows.some((row) => row.sync_state === 'sync')) break;
        if (Date.now() > end) throw new Error('the replica did not become synchronous');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return replica;
    },
    promote: async () => {
      await asPostgres('pg_ctl', ['-D', data, '-w', '-t', '60', 'promote']);
    },
    query: async <T extends pg.QueryResultRow>(text: string) => {
      const client = new pg.Client({ host: dir, port, user: 'postgres', database: 'postgres' });
      await client.connect();
      try {
        return (await client.query<T>(text)).rows;
      } finally {
        await client.end();
      }
    },
    remove: async () => {
      for (const replica of replicas) await replica.remove();
      await asPostgres('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => {});
      clusters.delete(entry);
      if (![...clusters].some((other) => other.dir === dir)) rmSync(dir, { recursive: true, force: true });
    },
  };
  return self;
}
