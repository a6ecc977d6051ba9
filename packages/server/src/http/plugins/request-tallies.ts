import { Counter, type Registry } from 'prom-client';

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/** One route's answers: counts by status and a latency histogram, in plain numbers. */
export class RouteTally {
  readonly method: string;
  readonly route: string;
  /** Answers by status code. */
  readonly statuses = new Map<number, number>();
  /** Observations per bucket (not cumulative); the last one is +Inf. */
  readonly buckets = new Float64Array(LATENCY_BUCKETS.length + 1);
  sum = 0;
  count = 0;

  constructor(method: string, route: string) {
    this.method = method;
    this.route = route;
  }

  record(status: number, seconds: number): void {
    this.statuses.set(status, (this.statuses.get(status) ?? 0) + 1);
    let bucket = 0;
    while (bucket < LATENCY_BUCKETS.length && seconds > (LATENCY_BUCKETS[bucket] as number)) bucket += 1;
    this.buckets[bucket] = (this.buckets[bucket] as number) + 1;
    this.sum += seconds;
    this.count += 1;
  }

  reset(): void {
    this.statuses.clear();
    this.buckets.fill(0);
    this.sum = 0;
    this.count = 0;
  }
}

/**
 * Requests by route and status, and their latency, as Prometheus metrics (decision 0184).
 * prom-client hashes and validates a child's labels on every `inc` and `observe`: a tenth of a
 * read's CPU. A request adds to its route's `RouteTally` instead, and the registry reads the
 * tallies when scraped: the counter through prom-client's own `collect`, the histogram as a
 * metric of the shape prom-client's registry and cluster aggregation read (`get()`).
 */
export class RequestTallies {
  /** By method, then route: both are strings Node and Fastify reuse, so no key is built per request. */
  readonly #byMethod = new Map<string, Map<string, RouteTally>>();
  readonly #routes: RouteTally[] = [];

  constructor(registry: Registry) {
    const routes = this.#routes;
    new Counter({
      name: 'obolus_http_requests_total',
      help: 'HTTP requests answered, by route template and status code.',
      labelNames: ['method', 'route', 'status'] as const,
      registers: [registry],
      // Each scrape sets the counter to the tallies' totals.
      collect() {
        this.reset();
        for (const tally of routes) {
          for (const [status, answered] of tally.statuses) {
            this.inc({ method: tally.method, route: tally.route, status: String(status) }, answered);
          }
        }
      },
    });
    registry.registerMetric(latencyHistogram(routes) as unknown as Parameters<Registry['registerMetric']>[0]);
  }

  /** The tally of one route (a template, never a raw URL: ids in paths would explode the labels). */
  of(method: string, route: string): RouteTally {
    let routes = this.#byMethod.get(method);
    if (routes === undefined) {
      routes = new Map();
      this.#byMethod.set(method, routes);
    }
    let tally = routes.get(route);
    if (tally === undefined) {
      tally = new RouteTally(method, route);
      routes.set(route, tally);
      this.#routes.push(tally);
    }
    return tally;
  }
}

const LATENCY = 'obolus_http_request_duration_seconds';

/** The latency histogram as prom-client's registry reads a metric: cumulative buckets, sum, count. */
function latencyHistogram(routes: RouteTally[]) {
  return {
    name: LATENCY,
    help: 'Time from request received to response sent.',
    type: 'histogram',
    aggregator: 'sum',
    async get() {
      const values: Array<{ metricName: string; labels: Record<string, string | number>; value: number }> = [];
      for (const tally of routes) {
        const labels = { method: tally.method, route: tally.route };
        let cumulative = 0;
        for (const [i, bound] of LATENCY_BUCKETS.entries()) {
          cumulative += tally.buckets[i] as number;
          values.push({ metricName: `${LATENCY}_bucket`, labels: { le: bound, ...labels }, value: cumulative });
        }
        values.push({ metricName: `${LATENCY}_bucket`, labels: { le: '+Inf', ...labels }, value: tally.count });
        values.push({ metricName: `${LATENCY}_sum`, labels, value: tally.sum });
        values.push({ metricName: `${LATENCY}_count`, labels, value: tally.count });
      }
      return { name: LATENCY, help: this.help, type: 'histogram', values, aggregator: 'sum' };
    },
    reset() {
      for (const tally of routes) tally.reset();
    },
  };
}
