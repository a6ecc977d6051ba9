import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { Obolus, ObolusError, signWebhook, verifyWebhook } from '../src/index.ts';

const secret = `whsec_${Buffer.from('a secret of thirty-two bytes....').toString('base64')}`;
const event = {
  id: 'evt_1',
  object: 'event',
  type: 'payment_intent.succeeded',
  created: 1_762_000_000.5,
  mode: 'sandbox',
  sequence: 3,
  data: { object: { id: 'abc', object: 'payment_intent' } },
};
const body = JSON.stringify(event);
const nowSeconds = () => Math.floor(Date.now() / 1000);

describe('@obolus/node webhooks.verify, interoperable with the standardwebhooks library', () => {
  const obolus = new Obolus('sk_test', { baseUrl: 'http://127.0.0.1:1' });

  it('verifies what standardwebhooks signs', () => {
    const timestamp = new Date();
    const signature = new Webhook(secret).sign('msg_1', timestamp, body);
    const headers = {
      'webhook-id': 'msg_1',
      'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
      'webhook-signature': signature,
    };
    expect(obolus.webhooks.verify(body, headers, secret)).toEqual(event);
    expect(verifyWebhook(Buffer.from(body), new Headers(headers), secret)).toEqual(event);
  });

  it('signs what standardwebhooks verifies', () => {
    const timestamp = nowSeconds();
    const signature = signWebhook({ id: 'msg_2', timestamp, body }, secret);
    const headers = { 'webhook-id': 'msg_2', 'webhook-timestamp': String(timestamp), 'webhook-signature': signature };
    expect(new Webhook(secret).verify(body, headers)).toEqual(event);
  });

  it('accepts any one of several signatures (a rolled secret signs beside the previous one)', () => {
    const timestamp = nowSeconds();
    const other = `whsec_${Buffer.from('another secret of 32 bytes......').toString('base64')}`;
    const signatures = [other, secret].map((s) => signWebhook({ id: 'msg_3', timestamp, body }, s)).join(' ');
    const headers = { 'webhook-id': 'msg_3', 'webhook-timestamp': String(timestamp), 'webhook-signature': signatures };
    expect(obolus.webhooks.verify(body, headers, secret)).toEqual(event);
  });

  it.each([
    ['a tampered body', (h: Record<string, string>) => [body.replace('succeeded', 'failed'), h]],
    [
      'a wrong secret',
      (h: Record<string, string>) => [body, h, `whsec_${Buffer.from('x'.repeat(32)).toString('base64')}`],
    ],
    [
      'a timestamp 6 minutes old',
      (h: Record<string, string>) => [body, { ...h, 'webhook-timestamp': String(nowSeconds() - 360) }],
    ],
    ['a missing signature header', (h: Record<string, string>) => [body, { ...h, 'webhook-signature': '' }]],
    ['a swapped webhook-id', (h: Record<string, string>) => [body, { ...h, 'webhook-id': 'msg_other' }]],
  ] as const)('refuses %s, as standardwebhooks does', (_name, mutate) => {
    const timestamp = nowSeconds();
    const headers = {
      'webhook-id': 'msg_4',
      'webhook-timestamp': String(timestamp),
      'webhook-signature': new Webhook(secret).sign('msg_4', new Date(timestamp * 1000), body),
    };
    const [rawBody, changed, withSecret = secret] = mutate(headers) as [string, Record<string, string>, string?];
    expect(() => obolus.webhooks.verify(rawBody, changed, withSecret)).toThrow(ObolusError);
    expect(() => new Webhook(withSecret).verify(rawBody, changed)).toThrow();
  });
});
