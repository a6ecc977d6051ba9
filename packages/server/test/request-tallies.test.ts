import { AggregatorRegistry, Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { RequestTallies } from '../src/http/plugins/request-tallies.ts';

const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/** What prom-client's own Counter and Histogram show for the same answers: the reference. */
function reference(answers: Array<[method: string, route: string, status: number, seconds: number]>): Registry {
  const registry = new Registry();
  const requests = new Counter({
    name: 'obolus_http_requests_total',
    help: 'HTTP requests answered, by route template and status code.',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'obolus_http_request_duration_seconds',
    help: 'Time from request received to response sent.',
    labelNames: ['method', 'route'],
    buckets: BUCKETS,
    registers: [registry],
  });
  for (const [method, route, status, seconds] of answers) {
    requests.inc({ method, route, status: String(status) });
    latency.observe({ method, route }, seconds);
  }
  return registry;
}

function tallied(answers: Array<[string, string, number, number]>): Registry {
  const registry = new Registry();
  const tallies = new RequestTallies(registry);
  for (const [method, route, status, seconds] of answers) tallies.of(method, route).record(status, seconds);
  return registry;
}

const ANSWERS: Array<[string, string, number, number]> = [
  ['GET', '/api/v1/payment-intents/:id', 200, 0.0004],
  ['GET', '/api/v1/payment-intents/:id', 200, 0.001], // on a bound: counted in that bucket
  ['GET', '/api/v1/payment-intents/:id', 404, 0.0011],
  ['POST', '/api/v1/payment-intents', 200, 0.012],
  ['POST', '/api/v1/payment-intents', 400, 3.5], // past the last bound: +Inf only
  ['GET', 'unmatched', 404, 0.00002],
];

describe('request tallies', () => {
  it("show what prom-client's own counter and histogram would, line for line", async () => {
    expect(await tallied(ANSWERS).metrics()).toBe(await reference(ANSWERS).metrics());
  });

  it('count every answer once across scrapes', async () => {
    const registry = new Registry();
    const tallies = new RequestTallies(registry);
    const route = tallies.of('GET', '/api/v1/transactions/:id');
    route.record(200, 0.002);
    await registry.metrics();
    route.record(200, 0.003);
    route.record(200, 0.004);
    const text = await registry.metrics();
    expect(text).toContain('obolus_http_requests_total{method="GET",route="/api/v1/transactions/:id",status="200"} 3');
    expect(text).toContain(
      'obolus_http_request_duration_seconds_count{method="GET",route="/api/v1/transactions/:id"} 3',
    );
    expect(tallies.of('GET', '/api/v1/transactions/:id')).toBe(route);
  });

  it("add up across a cluster's workers as prom-client's do", async () => {
    const [first, second] = [ANSWERS.slice(0, 3), ANSWERS.slice(3)];
    const ours = AggregatorRegistry.aggregate([
      await tallied(first).getMetricsAsJSON(),
      await tallied(second).getMetricsAsJSON(),
    ]);
    const theirs = AggregatorRegistry.aggregate([
      await reference(first).getMetricsAsJSON(),
      await reference(second).getMetricsAsJSON(),
    ]);
    expect(await ours.metrics()).toBe(await theirs.metrics());
  });
});
