import { BlockList, isIP } from 'node:net';

/**
 * Where webhooks may not go (docs/decisions/0021). A merchant chooses the URL, so without
 * this a webhook is a way to make the service send requests into its own network: to
 * databases, admin ports or the cloud metadata service at 169.254.169.254.
 */
interface Range {
  subnet: string;
  prefix: number;
  family: 'ipv4' | 'ipv6';
  reason: string;
}

const v4 = (subnet: string, prefix: number, reason: string): Range => ({ subnet, prefix, family: 'ipv4', reason });
const v6 = (subnet: string, prefix: number, reason: string): Range => ({ subnet, prefix, family: 'ipv6', reason });

const LOOPBACK_REASON = 'loopback';

const IPV4_RANGES: Range[] = [
  v4('0.0.0.0', 8, 'unspecified ("this network")'),
  v4('10.0.0.0', 8, 'private'),
  v4('100.64.0.0', 10, 'shared address space (CGNAT)'),
  v4('127.0.0.0', 8, LOOPBACK_REASON),
  v4('169.254.0.0', 16, 'link-local (cloud metadata)'),
  v4('172.16.0.0', 12, 'private'),
  v4('192.0.0.0', 24, 'IETF protocol assignments'),
  v4('192.0.2.0', 24, 'documentation'),
  v4('192.88.99.0', 24, '6to4 relay anycast'),
  v4('192.168.0.0', 16, 'private'),
  v4('198.18.0.0', 15, 'benchmarking'),
  v4('198.51.100.0', 24, 'documentation'),
  v4('203.0.113.0', 24, 'documentation'),
  v4('224.0.0.0', 4, 'multicast'),
  v4('240.0.0.0', 4, 'reserved or broadcast'),
];

/**
 * IPv4-mapped addresses (::ffff:a.b.c.d) match the IPv4 ranges above by themselves (BlockList
 * does that). NAT64 addresses (64:ff9b::a.b.c.d) are public when the IPv4 inside is: on an
 * IPv6-only network with DNS64 every IPv4 receiver has one, so only the private ones are refused.
 */
const IPV6_RANGES: Range[] = [
  v6('::', 128, 'unspecified'),
  v6('::1', 128, LOOPBACK_REASON),
  v6('::', 96, 'IPv4-compatible (deprecated)'),
  // ::ffff:0:a.b.c.d, SIIT's IPv4-translated form: a translator in the path reaches the IPv4 inside.
  v6('::ffff:0:0:0', 96, 'IPv4-translated (SIIT)'),
  ...IPV4_RANGES.map((r) => v6(`64:ff9b::${r.subnet}`, 96 + r.prefix, `${r.reason} (via NAT64)`)),
  v6('64:ff9b:1::', 48, 'local NAT64'),
  v6('100::', 64, 'discard-only'),
  v6('2001::', 32, 'Teredo'),
  v6('2001:db8::', 32, 'documentation'),
  v6('2002::', 16, '6to4'),
  v6('fc00::', 7, 'unique local (private)'),
  v6('fe80::', 10, 'link-local'),
  v6('fec0::', 10, 'site-local (deprecated)'),
  v6('ff00::', 8, 'multicast'),
];

const RANGES = [...IPV4_RANGES, ...IPV6_RANGES].map((range) => {
  const list = new BlockList();
  list.addSubnet(range.subnet, range.prefix, range.family);
  return { ...range, list };
});

/** Why `address` may not receive webhooks, or null when it may. Anything that is not an IP is refused. */
export function forbiddenReason(address: string, allowLoopback: boolean): string | null {
  const version = isIP(address);
  if (version === 0) return 'not an IP address';
  const family = version === 4 ? 'ipv4' : 'ipv6';
  const hit = RANGES.find((range) => range.list.check(address, family));
  if (!hit) return null;
  if (hit.reason === LOOPBACK_REASON && allowLoopback) return null;
  return hit.reason;
}

/**
 * Every refused range as one BlockList, for the socket itself (net.connect's blockList):
 * whatever path an address takes to connect(), it is checked there once more.
 */
export function forbiddenBlockList(allowLoopback: boolean): BlockList {
  const list = new BlockList();
  for (const range of RANGES) {
    if (allowLoopback && range.reason === LOOPBACK_REASON) continue;
    list.addSubnet(range.subnet, range.prefix, range.family);
  }
  return list;
}

/** `[::1]` -> `::1`: URL hostnames keep the brackets of IPv6 literals. */
export function unbracket(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

/** Names that resolve to loopback by definition (RFC 6761), refused before any lookup. */
export function isLoopbackName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}
