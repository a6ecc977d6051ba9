/** Resident memory of a server under test and of the worker processes it forked, from /proc (Linux). */
import { readdirSync, readFileSync } from 'node:fs';

/** VmRSS of `pid` in MB, or null where /proc does not say (another OS, a process gone). */
export function rssMb(pid: number): number | null {
  try {
    const kb = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? null : Math.round(Number(kb) / 1024);
  } catch {
    return null;
  }
}

/** The processes whose parent is `pid`. */
export function childrenOf(pid: number): number[] {
  const out: number[] = [];
  let entries: string[] = [];
  try {
    entries = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return out;
  }
  for (const name of entries) {
    try {
      // pid (comm) state ppid …: the command may hold spaces and parentheses, the last ')' ends it.
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) out.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

export interface ServerMemory {
  /** The process `obolus serve` started as. */
  primary_mb: number | null;
  /** The processes it started: node:cluster's workers with --workers N > 1, esbuild's service (the widget's bundles). */
  children_mb: number[];
}

export function serverMemory(pid: number): ServerMemory {
  return {
    primary_mb: rssMb(pid),
    children_mb: childrenOf(pid)
      .map(rssMb)
      .filter((mb): mb is number => mb !== null),
  };
}

/** The target of issue 28: no process of `obolus serve` above this after the full bench. */
export const RSS_TARGET_MB = 250;

export function memoryLine(name: string, memory: ServerMemory): string {
  const all = [memory.primary_mb, ...memory.children_mb].filter((mb): mb is number => mb !== null);
  if (all.length === 0) return `${name}: RSS not available (no /proc)`;
  const workers = memory.children_mb.length ? `, its child processes ${memory.children_mb.join(' / ')} MB` : '';
  const verdict = Math.max(...all) <= RSS_TARGET_MB ? 'ok' : `MISSED: above ${RSS_TARGET_MB} MB`;
  return `${name}: RSS after the bench ${memory.primary_mb} MB${workers} (target <= ${RSS_TARGET_MB} MB each: ${verdict})`;
}
