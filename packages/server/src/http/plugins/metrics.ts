import { createServer, type Server } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { AggregatorRegistry, collectDefaultMetrics, Registry } from 'prom-client';
import { RequestTallies } from './request-tallies.ts';

/**
 * Prometheus metrics: requests by route and status, and a latency histogram, counted on the
 * public app and served by `serveMetrics` on a listener of their own. Each app has its own
 * registry so that several apps can live in one process.
 */
export function useMetrics(app: FastifyInstance): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'obolus_' });
  const tallies = new RequestTallies(registry);
  app.addHook('onResponse', (request, reply, done) => {
    tallies
      .of(request.method, request.routeOptions.url ?? 'unmatched')
      .record(reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
  return registry;
}

export interface MetricsListener {
  /** http://host:port/metrics */
  url: string;
  close(): Promise<void>;
}

/** What a metrics listener serves: one process's registry, or a cluster's sum (`clusterMetrics`). */
export interface MetricsSource {
  contentType: string;
  metrics(): Promise<string>;
}

/**
 * A `serve --workers` worker: its metrics go to the primary when it asks (prom-client's cluster
 * protocol over the IPC channel), instead of to a listener of its own on the shared port.
 */
export function reportMetricsToPrimary(registry: Registry): void {
  new AggregatorRegistry(); // answers the primary's requests from now on
  AggregatorRegistry.setRegistries([registry]);
}

/** The `serve --workers` primary: every worker's metrics, summed, when scraped. */
export function clusterMetrics(): MetricsSource {
  const aggregator = new AggregatorRegistry();
  return { contentType: aggregator.contentType, metrics: () => aggregator.clusterMetrics() };
}

/**
 * GET /metrics on its own listener (decision 0074), by default on loopback only: the public
 * port never shows them. Anything else on it is a 404.
 */
export async function serveMetrics(registry: MetricsSource, host: string, port: number): Promise<MetricsListener> {
  const server: Server = createServer((request, response) => {
    if (request.method !== 'GET' || request.url?.split('?')[0] !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found: GET /metrics\n');
      return;
    }
    registry.metrics().then(
      (text) => response.writeHead(200, { 'content-type': registry.contentType }).end(text),
      () => response.writeHead(500).end(),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as { port: number };
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${address.port}/metrics`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
