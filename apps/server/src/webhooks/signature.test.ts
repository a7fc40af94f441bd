import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { newWebhookSecret, signatureHeader, webhookSecretKey } from './signature.js';

const headers = (id: string, timestamp: number, signature: string) => ({
  'webhook-id': id,
  'webhook-timestamp': String(timestamp),
  'webhook-signature': signature,
});
const nowSeconds = () => Math.floor(Date.now() / 1000);

describe('newWebhookSecret', () => {
  it('is whsec_ and the base64 of 32 random bytes', () => {
    const secret = newWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(webhookSecretKey(secret)).toHaveLength(32);
  });

  it('is new every time', () => {
    const secrets = new Set(Array.from({ length: 200 }, newWebhookSecret));
    expect(secrets.size).toBe(200);
  });
});

describe('webhookSecretKey', () => {
  it('decodes the base64 after the prefix', () => {
    expect(webhookSecretKey('whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=')).toEqual(
      Buffer.from([...Array(32).keys()]),
    );
    expect(webhookSecretKey('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw')).toHaveLength(24);
  });

  it.each([
    '',
    'whsec_',
    'MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    'WHSEC_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaS', // not a multiple of 4
    'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLa=w', // padding inside
    'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaS!',
    'whsec_MfKQ9r8GKYqrTwjU PD8ILPZIo2LaLaSw',
    'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw\n',
    'whsec_MfKQ9r8G-YqrTwjUPD8ILPZIo2LaLaSw', // base64url
  ])('is undefined for %j', (secret) => {
    expect(webhookSecretKey(secret)).toBeUndefined();
  });
});

describe('signatureHeader', () => {
  it('is v1,<base64 HMAC-SHA256 over "<id>.<timestamp>.<body>"> keyed with the decoded secret', () => {
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const body = '{"test": 2432232314}';
    // The Standard Webhooks specification's own example.
    expect(signatureHeader([secret], 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, body)).toBe(
      'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    );
    const key = Buffer.from('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'base64');
    expect(signatureHeader([secret], 'msg_1', 5, 'é')).toBe(
      `v1,${createHmac('sha256', key).update(Buffer.from('msg_1.5.é', 'utf8')).digest('base64')}`,
    );
  });

  it('is verified by the standardwebhooks package, for any body', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 200 }),
        fc.stringMatching(/^msg_[A-Za-z0-9]{1,64}$/),
        (body, id) => {
          const secret = newWebhookSecret();
          const timestamp = nowSeconds();
          const signature = signatureHeader([secret], id, timestamp, body);
          const raw = { jsonParse: false };
          expect(() => new Webhook(secret).verify(body, headers(id, timestamp, signature), raw)).not.toThrow();
          // A changed body, id, timestamp or key does not verify.
          expect(() => new Webhook(secret).verify(`${body} `, headers(id, timestamp, signature), raw)).toThrow(
            'No matching signature found',
          );
          expect(() => new Webhook(secret).verify(body, headers(`${id}x`, timestamp, signature), raw)).toThrow(
            'No matching signature found',
          );
          expect(() => new Webhook(secret).verify(body, headers(id, timestamp - 1, signature), raw)).toThrow(
            'No matching signature found',
          );
          expect(() => new Webhook(newWebhookSecret()).verify(body, headers(id, timestamp, signature), raw)).toThrow(
            'No matching signature found',
          );
        },
      ),
      { numRuns: 100 },
    );
  });

  it('signs with every secret in order, space-separated, and each verifies on its own (rotation)', () => {
    const [newer, older] = [newWebhookSecret(), newWebhookSecret()];
    const body = '{"type":"plant.created","timestamp":"2026-01-01T00:00:00.000Z","data":{"id":1,"name":"Fern"}}';
    const timestamp = nowSeconds();
    const header = signatureHeader([newer, older], 'msg_abc', timestamp, body);
    const [first, second, ...rest] = header.split(' ');
    expect(rest).toEqual([]);
    expect(first).toBe(signatureHeader([newer], 'msg_abc', timestamp, body));
    expect(second).toBe(signatureHeader([older], 'msg_abc', timestamp, body));
    expect(new Webhook(newer).verify(body, headers('msg_abc', timestamp, header))).toEqual(JSON.parse(body));
    expect(new Webhook(older).verify(body, headers('msg_abc', timestamp, header))).toEqual(JSON.parse(body));
    expect(() => new Webhook(newWebhookSecret()).verify(body, headers('msg_abc', timestamp, header))).toThrow();
  });

  it('is empty for no secrets', () => {
    expect(signatureHeader([], 'msg_1', 1, '{}')).toBe('');
  });

  it('throws a TypeError that does not show a malformed secret', () => {
    expect(() => signatureHeader([newWebhookSecret(), 'whsec_not base64!'], 'msg_1', 1, '{}')).toThrow(
      new TypeError('webhook secret 2 of 2 is malformed (expected whsec_ + base64)'),
    );
    expect(() => signatureHeader([newWebhookSecret()], 'msg_1', 1.5, '{}')).toThrow(TypeError);
  });
});
