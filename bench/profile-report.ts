/**
 * `--profile`: what each scenario's requests cost the server's main thread, cut out of one
 * CPU profile by the scenario's measured window (the profile and the bench share the monotonic
 * clock). Written as bench/results/profiles/<run>/summary.md; docs/performance.md quotes it.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Measured } from './load.ts';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

interface Cost {
  busyShare: number;
  /** Main-thread CPU per request, in microseconds. */
  perRequestUs: number;
  byPackage: Array<[string, number]>;
  byFunction: Array<[string, number]>;
}

const TOP = 12;

/** Where a frame's code lives: a package, Obolus's own file, Node's internals or native code. */
function origin(url: string): { group: string; place: string } {
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1];
  if (pkg) return { group: pkg, place: pkg };
  const own = url.split('/packages/server/src/')[1];
  if (own) return { group: 'obolus', place: `obolus ${own}` };
  if (url.startsWith('node:')) return { group: 'node internals', place: url };
  return { group: url === '' ? 'native, GC and V8' : url, place: url || 'native' };
}

/** The cost of the requests answered in `[from, to]` (microseconds of the monotonic clock). */
export function costIn(profile: CpuProfile, [from, to]: [number, number], requests: number): Cost {
  const frames = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const byPackage = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let at = profile.startTime;
  let busy = 0;
  profile.samples.forEach((sample, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    const frame = frames.get(sample);
    if (at < from || at > to || !frame || frame.functionName === '(idle)') return;
    const { group, place } = origin(frame.url);
    const name = `${frame.functionName || '(anonymous)'} (${place})`;
    busy += delta;
    byPackage.set(group, (byPackage.get(group) ?? 0) + delta);
    byFunction.set(name, (byFunction.get(name) ?? 0) + delta);
  });
  const perRequest = (entries: Map<string, number>) =>
    [...entries]
      .sort((a, b) => b[1] - a[1])
      .slice(0, TOP)
      .map(([name, us]): [string, number] => [name, us / Math.max(1, requests)]);
  return {
    busyShare: busy / Math.max(1, to - from),
    perRequestUs: busy / Math.max(1, requests),
    byPackage: perRequest(byPackage),
    byFunction: perRequest(byFunction),
  };
}

/**
 * The main thread that served the load: of the main-thread profiles in `dir` (threads write
 * their own; `--workers` adds a primary that serves nothing), the busiest in the first window.
 */
function servingProfile(dir: string, window: [number, number]): CpuProfile | undefined {
  const profiles = readdirSync(dir)
    .filter((name) => /\.0\.\d+\.cpuprofile$/.test(name))
    .map((name) => JSON.parse(readFileSync(join(dir, name), 'utf8')) as CpuProfile);
  const busy = (profile: CpuProfile) => costIn(profile, window, 1).perRequestUs;
  return profiles.sort((a, b) => busy(b) - busy(a))[0];
}

/** Writes `summary.md` beside the profiles of one run; returns its path, or undefined without a profile. */
export function writeProfileSummary(
  dir: string,
  title: string,
  measured: Record<string, Measured>,
): string | undefined {
  const first = Object.values(measured)[0];
  const profile = first && servingProfile(dir, first.window_us);
  if (!profile) return undefined;
  const us = (n: number) => n.toFixed(1);
  const sections = Object.entries(measured).map(([scenario, m]) => {
    const cost = costIn(profile, m.window_us, m.requests);
    return [
      `## ${scenario}`,
      '',
      `${m.rps} req/s; main thread busy ${Math.round(cost.busyShare * 100)}% of the window, ` +
        `${us(cost.perRequestUs)} µs of its CPU per request.`,
      '',
      '| µs per request | package |',
      '|---:|---|',
      ...cost.byPackage.map(([name, n]) => `| ${us(n)} | ${name} |`),
      '',
      '| µs per request | function (self time) |',
      '|---:|---|',
      ...cost.byFunction.map(([name, n]) => `| ${us(n)} | ${name.replaceAll('|', '\\|')} |`),
      '',
    ].join('\n');
  });
  const file = join(dir, 'summary.md');
  writeFileSync(file, [`# ${title}: CPU per request, by scenario`, '', ...sections].join('\n'));
  return file;
}
