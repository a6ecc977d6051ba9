import { isIPv4, isIPv6 } from 'node:net';

/**
 * The network a client address counts as for per-client limits (decision 0071). An IPv4
 * address is itself; an IPv6 client counts per /64, the smallest network a subscriber is
 * given: anyone holding one /64 has 2^64 addresses to rotate through.
 */
export function clientNetwork(address: string): string {
  let network = networks.get(address);
  if (network === undefined) {
    network = networkOf(address);
    if (networks.size >= 10_000) networks.clear();
    networks.set(address, network);
  }
  return network;
}

/** Addresses seen lately and their networks: every API request asks, mostly for the same few. */
const networks = new Map<string, string>();

function networkOf(address: string): string {
  const ip = address.replace(/%.*$/, '');
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped?.[1]) return mapped[1];
  if (isIPv4(ip) || !isIPv6(ip)) return ip;
  return `${expandIPv6(ip).slice(0, 4).join(':')}::/64`;
}

/** The eight groups of an IPv6 address, without leading zeros (an embedded IPv4 tail becomes two groups). */
function expandIPv6(ip: string): string[] {
  let text = ip.toLowerCase();
  const v4Tail = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4Tail) {
    const [a, b, c, d] = v4Tail.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4Tail.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const zeros = tail === undefined ? [] : Array(8 - left.length - right.length).fill('0');
  return [...left, ...zeros, ...right].map((group) => Number.parseInt(group, 16).toString(16));
}
