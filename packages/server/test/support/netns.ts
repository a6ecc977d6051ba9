import { execFileSync } from 'node:child_process';

/**
 * Test hosts of their own: one network namespace per host, each with its own address on a
 * bridge the test makes in the root namespace (whose address, the gateway, is where the test's
 * database and receivers listen). Addresses come from 198.18.0.0/15, the range set aside for
 * network tests (RFC 2544); nothing is routed off the machine. Root only.
 */
export interface TestNetwork {
  /** The root namespace's address on the bridge. */
  gateway: string;
  hosts: TestHost[];
  /** Deletes every namespace, veth and the bridge (also done when the process exits). */
  remove(): void;
}

export interface TestHost {
  name: string;
  address: string;
  /** The command prefix that runs a program in this host's namespace. */
  exec: string[];
}

const ip = (...args: string[]) => execFileSync('ip', args, { stdio: ['ignore', 'ignore', 'pipe'] });

/** A network of `count` hosts, or the reason it cannot be made here (no privilege, no iproute2). */
export function makeTestNetwork(count: number): TestNetwork | { unavailable: string } {
  if (process.getuid?.() !== 0) return { unavailable: 'network namespaces need root' };
  const id = `ob${process.pid % 100_000}`;
  const subnet = `198.18.${(process.pid % 250) + 1}`;
  const bridge = `${id}br`;
  const names = Array.from({ length: count }, (_, i) => `${id}h${i + 1}`);
  let removed = false;
  const remove = () => {
    if (removed) return;
    removed = true;
    for (const name of names) {
      try {
        ip('netns', 'del', name);
      } catch {}
    }
    try {
      ip('link', 'del', bridge);
    } catch {}
  };
  process.once('exit', remove);
  try {
    ip('link', 'add', bridge, 'type', 'bridge');
    ip('addr', 'add', `${subnet}.1/24`, 'dev', bridge);
    ip('link', 'set', bridge, 'up');
    const hosts = names.map((name, i) => {
      const address = `${subnet}.${11 + i}`;
      ip('netns', 'add', name);
      ip('link', 'add', `${name}a`, 'type', 'veth', 'peer', 'name', `${name}b`);
      ip('link', 'set', `${name}a`, 'master', bridge, 'up');
      ip('link', 'set', `${name}b`, 'netns', name);
      ip('-n', name, 'addr', 'add', `${address}/24`, 'dev', `${name}b`);
      ip('-n', name, 'link', 'set', `${name}b`, 'up');
      ip('-n', name, 'link', 'set', 'lo', 'up');
      return { name, address, exec: ['ip', 'netns', 'exec', name] };
    });
    return { gateway: `${subnet}.1`, hosts, remove };
  } catch (error) {
    remove();
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
    return { unavailable: `could not make network namespaces: ${stderr || (error as Error).message}` };
  }
}
