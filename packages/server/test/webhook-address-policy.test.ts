import { describe, expect, it } from 'vitest';
import { forbiddenReason } from '../src/domain/webhooks/address-policy.ts';
import { checkEndpointUrl } from '../src/domain/webhooks/url-policy.ts';

/** Pure checks, no network: each refused range at both of its edges, with its neighbours outside. */
describe('webhook address policy', () => {
  it.each([
    ['0.0.0.0', 'unspecified'],
    ['0.255.255.255', 'unspecified'],
    ['10.0.0.0', 'private'],
    ['10.255.255.255', 'private'],
    ['100.64.0.0', 'CGNAT'],
    ['100.127.255.255', 'CGNAT'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.255', 'loopback'],
    ['169.254.0.0', 'link-local'],
    ['169.254.169.254', 'metadata'],
    ['169.254.255.255', 'link-local'],
    ['172.16.0.0', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.0.0', 'private'],
    ['192.168.255.255', 'private'],
    ['192.0.0.8', 'IETF'],
    ['198.18.0.0', 'benchmarking'],
    ['198.19.255.255', 'benchmarking'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.255', 'multicast'],
    ['240.0.0.0', 'reserved'],
    ['255.255.255.255', 'broadcast'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:169.254.169.254', 'metadata'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:0:0:0', 'IPv4-translated'],
    ['::ffff:0:7f00:1', 'IPv4-translated'],
    ['::ffff:0:a9fe:a9fe', 'IPv4-translated'],
    ['::ffff:0:ffff:ffff', 'IPv4-translated'],
    ['64:ff9b::10.1.2.3', 'private (via NAT64)'],
    ['64:ff9b::a9fe:a9fe', 'NAT64'],
    ['fc00::', 'unique local'],
    ['fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'unique local'],
    ['fe80::', 'link-local'],
    ['febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'link-local'],
    ['fec0::1', 'site-local'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'documentation'],
    ['not-an-ip', 'not an IP'],
  ])('refuses %s (%s)', (address, reason) => {
    expect(forbiddenReason(address, false)).toContain(reason);
  });

  it.each([
    '1.0.0.0',
    '9.255.255.255',
    '11.0.0.0',
    '100.63.255.255',
    '100.128.0.0',
    '126.255.255.255',
    '128.0.0.0',
    '169.253.255.255',
    '169.255.0.0',
    '172.15.255.255',
    '172.32.0.0',
    '192.167.255.255',
    '192.169.0.0',
    '198.17.255.255',
    '198.20.0.0',
    '223.255.255.255',
    '::2:0:0',
    '::ffff:8.8.8.8',
    '::fffe:ffff:ffff:ffff',
    '::1:0:0:0',
    '64:ff9b::8.8.8.8',
    'fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff',
    'fe00::',
    'fe7f:ffff:ffff:ffff:ffff:ffff:ffff:ffff',
    '2606:4700:4700::1111',
  ])('allows the public address %s', (address) => {
    expect(forbiddenReason(address, false)).toBe(null);
  });

  it('OBOLUS_WEBHOOKS_ALLOW_LOOPBACK opens loopback only', () => {
    for (const address of ['127.0.0.1', '127.255.255.255', '::1', '::ffff:127.0.0.1']) {
      expect(forbiddenReason(address, true)).toBe(null);
    }
    for (const address of ['0.0.0.0', '10.0.0.1', '169.254.169.254', 'fe80::1', '64:ff9b::127.0.0.1']) {
      expect(forbiddenReason(address, true)).not.toBe(null);
    }
  });

  it.each([
    ['http://shop.example/hooks', 'live', /https/],
    ['ftp://shop.example/hooks', 'sandbox', /https:\/\//],
    ['shop.example/hooks', 'sandbox', /absolute URL/],
    ['https://user:pass@shop.example/hooks', 'live', /user name or password/],
    ['https://169.254.169.254/latest/meta-data', 'live', /link-local/],
    ['https://10.0.0.7/hooks', 'live', /private/],
    ['https://[::1]/hooks', 'live', /loopback/],
    ['https://[fd00::1]/hooks', 'live', /unique local/],
    ['https://0x7f000001/hooks', 'live', /loopback/],
    ['http://localhost:3000/hooks', 'sandbox', /loopback/],
    ['http://api.localhost/hooks', 'sandbox', /loopback/],
  ] as const)('refuses the endpoint url %s (%s)', (url, mode, message) => {
    expect(() => checkEndpointUrl(url, mode, false)).toThrow(message);
  });

  it('accepts https in live, http in sandbox, loopback when allowed, names whatever they resolve to', () => {
    expect(checkEndpointUrl('https://shop.example/hooks', 'live', false)).toBe('https://shop.example/hooks');
    expect(checkEndpointUrl('http://shop.example/hooks', 'sandbox', false)).toBe('http://shop.example/hooks');
    expect(checkEndpointUrl('http://localhost:3000/hooks', 'sandbox', true)).toBe('http://localhost:3000/hooks');
    expect(checkEndpointUrl('http://127.0.0.1:3000/h', 'sandbox', true)).toBe('http://127.0.0.1:3000/h');
    // A name is judged when a delivery connects: DNS may answer differently by then.
    expect(checkEndpointUrl('https://internal.corp.example/h', 'live', false)).toBe('https://internal.corp.example/h');
  });
});
