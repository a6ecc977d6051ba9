import { BlockList, isIP } from 'node:net';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/**
 * Which reverse proxies may say who the client is (decision 0071): false (none), how many
 * proxies stand in front, or their addresses and CIDRs. Fastify (proxy-addr) then takes the
 * address the nearest untrusted hop had, as the last trusted proxy saw it: a client can put
 * anything at the left of X-Forwarded-For, and it is never believed.
 */
export type TrustProxy = false | number | string[];

const NAMED_RANGES = ['loopback', 'linklocal', 'uniquelocal'];

export function parseTrustProxy(text: string | undefined): TrustProxy {
  const value = text?.trim() ?? '';
  if (value === '' || value === 'false') return false;
  if (value === 'true') {
    throw new Error(
      "OBOLUS_TRUST_PROXY=true would let every client choose its own address; set your proxies' addresses or CIDRs (e.g. 10.0.0.5,10.1.0.0/16) or how many proxies are in front (e.g. 1)",
    );
  }
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    if (hops < 1 || hops > 10) throw new Error(`OBOLUS_TRUST_PROXY: a hop count is 1 to 10, got '${value}'`);
    return hops;
  }
  const entries = value.split(',').map((entry) => entry.trim());
  for (const entry of entries) {
    if (!NAMED_RANGES.includes(entry) && !isAddressOrCidr(entry)) {
      throw new Error(
        `OBOLUS_TRUST_PROXY: '${entry}' is not an IP address, a CIDR (10.0.0.0/8) or one of ${NAMED_RANGES.join(', ')}`,
      );
    }
  }
  return entries;
}

/** Fastify's form of it: a hop count becomes "the nearest `hops` hops" (as proxy-addr counts them). */
export function fastifyTrustProxy(trust: TrustProxy): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (typeof trust === 'number') return (_address, hop) => hop < trust;
  return trust;
}

function isAddressOrCidr(entry: string): boolean {
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d+$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

const PRIVATE = new BlockList();
for (const [subnet, prefix] of [
  ['10.0.0.0', 8],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
] as const) {
  PRIVATE.addSubnet(subnet, prefix, 'ipv4');
}
PRIVATE.addSubnet('fc00::', 7, 'ipv6');
PRIVATE.addSubnet('fe80::', 10, 'ipv6');
PRIVATE.addAddress('::1', 'ipv6');

export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  return family !== 0 && PRIVATE.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * With no proxy trusted, requests a proxy forwards all carry the proxy's address, and the
 * per-client card-testing limit counts every shopper as one. Said once per process, at the
 * first such request.
 */
export function warnOfUntrustedProxy(app: FastifyInstance, trust: TrustProxy): void {
  if (trust !== false) return;
  let warned = false;
  app.addHook('onRequest', (request, _reply, done) => {
    if (!warned && arrivesThroughProxy(request)) {
      warned = true;
      const peer = request.socket.remoteAddress ?? '';
      request.log.warn(
        { proxy: peer },
        `requests arrive through a proxy at ${peer} but OBOLUS_TRUST_PROXY is not set: every client counts as ${peer} for card-testing limits; set OBOLUS_TRUST_PROXY to the proxy's address (docs/operations.md)`,
      );
    }
    done();
  });
}

function arrivesThroughProxy(request: FastifyRequest): boolean {
  const forwarded = request.headers['x-forwarded-for'] !== undefined || request.headers.forwarded !== undefined;
  return forwarded && isPrivateAddress((request.socket.remoteAddress ?? '').replace(/^::ffff:/, ''));
}
