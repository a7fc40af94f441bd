import { createHmac, randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';
import { openApiDocument } from '@plant-store/domain';
import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import { Webhook, WebhookVerificationError as StandardWebhooksError } from 'standardwebhooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  verifyWebhook,
  verifyWebhookEither,
  WebhookVerificationError,
  type VerifiedWebhook,
  type WebhookHeaders,
  type WebhookVerificationReason,
} from './verify-webhook.js';

/** A tiny signer of our own (Standard Webhooks v1), to check the other direction against the package. */
const sign = (secret: string, id: string, timestamp: number | string, body: string | Uint8Array): string => {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body).digest('base64')}`;
};

const secretOf = (bytes: Uint8Array) => `whsec_${Buffer.from(bytes).toString('base64')}`;
const SECRET = secretOf(Buffer.from('0123456789abcdef0123456789abcdef'));
const OTHER_SECRET = secretOf(Buffer.from('fedcba9876543210fedcba9876543210'));
const ID = 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W';
const NOW = new Date('2026-11-24T10:00:01.500Z');
const T = Math.floor(NOW.getTime() / 1000);
const now = () => NOW;
const BODY =
  '{"type":"plant.created","timestamp":"2026-11-24T10:00:00.123Z","data":{"id":7,"name":"Fern","tag":"shade"}}';
const EVENT = {
  type: 'plant.created',
  timestamp: '2026-11-24T10:00:00.123Z',
  data: { id: 7, name: 'Fern', tag: 'shade' },
};

const headersFor = (
  body: string | Uint8Array,
  { id = ID, timestamp = T, secret = SECRET }: { id?: string; timestamp?: number | string; secret?: string } = {},
) => ({
  'webhook-id': id,
  'webhook-timestamp': String(timestamp),
  'webhook-signature': sign(secret, id, timestamp, body),
});

/** The reason `verifyWebhook` throws with, or 'ok'. */
const outcome = (
  body: string | Uint8Array,
  headers: WebhookHeaders,
  secrets: string | readonly string[] = SECRET,
  toleranceSeconds?: number,
): WebhookVerificationReason | 'ok' => {
  try {
    verifyWebhook(body, headers, secrets, { now, ...(toleranceSeconds === undefined ? {} : { toleranceSeconds }) });
    return 'ok';
  } catch (error) {
    if (error instanceof WebhookVerificationError) return error.reason;
    throw error;
  }
};

/** What the standardwebhooks package says of the same message, at the same instant. */
const theirs = (body: string | Buffer, headers: Record<string, string>, secret = SECRET): 'ok' | string => {
  vi.useFakeTimers({ toFake: ['Date'], now: NOW });
  try {
    new Webhook(secret).verify(body, headers);
    return 'ok';
  } catch (error) {
    if (error instanceof StandardWebhooksError) return error.message;
    throw error;
  } finally {
    vi.useRealTimers();
  }
};

afterEach(() => {
  vi.useRealTimers();
});

describe('verifyWebhook', () => {
  it('returns the id, the send time and the decoded event', () => {
    const verified: VerifiedWebhook = verifyWebhook(BODY, headersFor(BODY), SECRET, { now });
    expect(verified).toEqual({ id: ID, sentAt: new Date(T * 1000), event: EVENT });
    if (verified.event.type === 'plant.created') expect(verified.event.data.name).toBe('Fern');
  });

  it('takes the raw body as bytes or as text alike', () => {
    const bytes = Buffer.from(BODY);
    expect(verifyWebhook(bytes, headersFor(BODY), SECRET, { now }).event).toEqual(EVENT);
    expect(verifyWebhook(new Uint8Array(bytes), headersFor(bytes), SECRET, { now }).event).toEqual(EVENT);
  });

  it('decodes plant.deleted', () => {
    const body = '{"type":"plant.deleted","timestamp":"2026-11-24T10:00:00.123Z","data":{"id":7}}';
    expect(verifyWebhook(body, headersFor(body), SECRET, { now }).event).toEqual({
      type: 'plant.deleted',
      timestamp: '2026-11-24T10:00:00.123Z',
      data: { id: 7 },
    });
  });

  it('decodes plant.updated (the plant after the change)', () => {
    const body = '{"type":"plant.updated","timestamp":"2026-11-24T10:00:00.123Z","data":{"id":7,"name":"Fern"}}';
    const { event } = verifyWebhook(body, headersFor(body), SECRET, { now });
    expect(event).toEqual({
      type: 'plant.updated',
      timestamp: '2026-11-24T10:00:00.123Z',
      data: { id: 7, name: 'Fern' },
    });
    if (event.type === 'plant.updated') expect(event.data.tag).toBeUndefined();
  });

  it('uses the real clock by default', () => {
    const t = Math.floor(Date.now() / 1000);
    expect(verifyWebhook(BODY, headersFor(BODY, { timestamp: t }), SECRET).id).toBe(ID);
  });

  describe('against the standardwebhooks package', () => {
    it('verifies what Webhook#sign signs, with the whsec_ secret and with its bare base64', () => {
      const signature = new Webhook(SECRET).sign(ID, new Date(T * 1000), BODY);
      const headers = { 'webhook-id': ID, 'webhook-timestamp': String(T), 'webhook-signature': signature };
      expect(verifyWebhook(BODY, headers, SECRET, { now }).event).toEqual(EVENT);
      expect(verifyWebhook(BODY, headers, SECRET.slice('whsec_'.length), { now }).event).toEqual(EVENT);
    });

    it('signs what Webhook#verify accepts', () => {
      expect(theirs(BODY, headersFor(BODY))).toBe('ok');
      expect(theirs(Buffer.from(BODY), headersFor(BODY))).toBe('ok');
    });

    it('reads the secret as its package does: with or without whsec_, the same key', () => {
      const bare = SECRET.slice('whsec_'.length);
      const at = new Date(T * 1000);
      expect(new Webhook(bare).sign(ID, at, BODY)).toBe(new Webhook(SECRET).sign(ID, at, BODY));
      expect(new Webhook(SECRET).sign(ID, at, BODY)).toBe(sign(SECRET, ID, T, BODY));
      expect(theirs(BODY, headersFor(BODY), bare)).toBe('ok');
      expect(() => new Webhook('whsec_')).toThrow();
      expect(() => verifyWebhook(BODY, headersFor(BODY), 'whsec_', { now })).toThrow(TypeError);
    });

    it('agrees with it on any body, secret and id, both ways', () => {
      const id = fc
        .string({ unit: fc.constantFrom(...'abcXYZ019'), minLength: 1, maxLength: 64 })
        .map((s) => `msg_${s}`);
      fc.assert(
        fc.property(
          fc.string({ unit: 'grapheme' }),
          fc.uint8Array({ minLength: 1, maxLength: 64 }),
          id,
          fc.integer({ min: -300, max: 300 }),
          (body, key, msgId, skew) => {
            const secret = secretOf(key);
            const headers = {
              'webhook-id': msgId,
              'webhook-timestamp': String(T + skew),
              'webhook-signature': new Webhook(secret).sign(msgId, new Date((T + skew) * 1000), body),
            };
            expect(headers['webhook-signature']).toBe(sign(secret, msgId, T + skew, body));
            // The signature always passes; only a body that is no WebhookEvent is refused after it.
            expect(['ok', 'InvalidPayload']).toContain(outcome(body, headers, secret));
            vi.useFakeTimers({ toFake: ['Date'], now: NOW });
            try {
              expect(() => new Webhook(secret).verify(body, headers, { jsonParse: false })).not.toThrow();
            } finally {
              vi.useRealTimers();
            }
          },
        ),
        { numRuns: 200 },
      );
    });

    it.each([
      [-300, 'ok', 'ok'],
      [-301, 'TimestampTooOld', 'Message timestamp too old'],
      [300, 'ok', 'ok'],
      [301, 'TimestampTooNew', 'Message timestamp too new'],
    ] as const)('agrees on the tolerance edge %i s from now', (skew, ours, package_) => {
      const headers = headersFor(BODY, { timestamp: T + skew });
      expect(outcome(BODY, headers)).toBe(ours);
      expect(theirs(BODY, headers)).toBe(package_);
    });
  });

  describe('secret rotation', () => {
    const twoSignatures = (first: string, second: string) => ({
      ...headersFor(BODY),
      'webhook-signature': `${sign(first, ID, T, BODY)} ${sign(second, ID, T, BODY)}`,
    });

    it.each([
      ['new first, as the server sends them', SECRET, OTHER_SECRET],
      ['old first', OTHER_SECRET, SECRET],
    ])('accepts two signatures, %s, with either secret or both in any order', (_what, first, second) => {
      const headers = twoSignatures(first, second);
      for (const secrets of [[SECRET], [OTHER_SECRET], [SECRET, OTHER_SECRET], [OTHER_SECRET, SECRET]])
        expect(outcome(BODY, headers, secrets)).toBe('ok');
      expect(theirs(BODY, headers, SECRET)).toBe('ok');
      expect(theirs(BODY, headers, OTHER_SECRET)).toBe('ok');
    });

    it('accepts one signature with either of two secrets (the first seconds after a rotation)', () => {
      expect(outcome(BODY, headersFor(BODY, { secret: OTHER_SECRET }), [SECRET, OTHER_SECRET])).toBe('ok');
      expect(outcome(BODY, headersFor(BODY), [OTHER_SECRET, SECRET])).toBe('ok');
    });

    it('refuses when no secret made any of the signatures', () => {
      const third = secretOf(Buffer.alloc(32, 7));
      expect(outcome(BODY, twoSignatures(SECRET, OTHER_SECRET), [third])).toBe('NoMatchingSignature');
    });
  });

  describe('refuses tampering', () => {
    it.each([
      ['the body', { body: BODY.replace('Fern', 'Fenr') }],
      ['the body re-serialised with spaces', { body: JSON.stringify(EVENT, null, 1) }],
      ['the id', { id: 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4X' }],
      ['the timestamp (within the tolerance)', { timestamp: String(T - 1) }],
    ])('of %s', (_what, change: { body?: string; id?: string; timestamp?: string }) => {
      const headers = {
        ...headersFor(BODY),
        ...(change.id === undefined ? {} : { 'webhook-id': change.id }),
        ...(change.timestamp === undefined ? {} : { 'webhook-timestamp': change.timestamp }),
      };
      expect(outcome(change.body ?? BODY, headers)).toBe('NoMatchingSignature');
      expect(theirs(change.body ?? BODY, headers)).toBe('No matching signature found');
    });

    it('of the timestamp spelling: stricter than the package, which signs parseInt of the header', () => {
      const headers = { ...headersFor(BODY), 'webhook-timestamp': `0${T}` };
      expect(outcome(BODY, headers)).toBe('InvalidHeader');
      expect(theirs(BODY, headers)).toBe('ok');
    });

    it('of any single byte of the body, the id or the timestamp', () => {
      const body = Buffer.from(BODY);
      fc.assert(
        fc.property(
          fc.constantFrom('body', 'webhook-id', 'webhook-timestamp'),
          fc.nat(),
          fc.integer({ min: 1, max: 255 }),
          (part, position, xor) => {
            const headers: Record<string, string> = headersFor(body);
            const flip = (bytes: Buffer) => {
              const copy = Buffer.from(bytes);
              const i = position % copy.length;
              copy[i] = (copy[i] ?? 0) ^ xor;
              return copy;
            };
            const changedBody = part === 'body' ? flip(body) : body;
            if (part !== 'body') headers[part] = flip(Buffer.from(headers[part] ?? '', 'latin1')).toString('latin1');
            expect(outcome(changedBody, headers)).not.toBe('ok');
          },
        ),
        { numRuns: 1000 },
      );
    });

    it('with a wrong secret', () => {
      expect(outcome(BODY, headersFor(BODY), OTHER_SECRET)).toBe('NoMatchingSignature');
    });
  });

  describe('the signature header', () => {
    const good = sign(SECRET, ID, T, BODY);
    const withSignature = (value: string) => ({ ...headersFor(BODY), 'webhook-signature': value });

    it.each([
      ['another version before v1', `v1a,${good.slice(3)} ${good}`],
      ['another version after v1', `${good} v2,abc`],
      ['a malformed v1 entry before the good one', `v1,not-base64 ${good}`],
      ['a truncated v1 entry before the good one', `${good.slice(0, -2)} ${good}`],
      ['extra spaces', `  ${good}  `],
    ])('ignores %s', (_what, value) => {
      expect(outcome(BODY, withSignature(value))).toBe('ok');
      expect(theirs(BODY, withSignature(value))).toBe('ok');
    });

    it.each([
      ['the right bytes under another version', `v1a,${good.slice(3)}`],
      ['no version', good.slice(3)],
      ['the signature in base64url', good.replaceAll('+', '-').replaceAll('/', '_')],
      ['the signature without padding', good.slice(0, -1)],
      ['a comma instead of a space between entries', `v1,abc,${good}`],
    ])('does not accept %s', (_what, value) => {
      expect(outcome(BODY, withSignature(value))).toBe('NoMatchingSignature');
    });
  });

  describe('headers', () => {
    it.each(['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const)(
      'refuses a request without %s, or with it empty',
      (name) => {
        const { [name]: _dropped, ...rest } = headersFor(BODY);
        expect(outcome(BODY, rest)).toBe('MissingHeader');
        expect(outcome(BODY, { ...rest, [name]: '' })).toBe('MissingHeader');
        expect(outcome(BODY, { ...rest, [name]: undefined })).toBe('MissingHeader');
        expect(() => verifyWebhook(BODY, rest, SECRET, { now })).toThrow(`missing the ${name} header`);
      },
    );

    it('looks names up case-insensitively', () => {
      const { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': signature } = headersFor(BODY);
      expect(outcome(BODY, { 'Webhook-Id': id, 'WEBHOOK-TIMESTAMP': timestamp, 'webhook-Signature': signature })).toBe(
        'ok',
      );
    });

    it("takes Node's IncomingHttpHeaders and a Fetch Headers", () => {
      const node: IncomingHttpHeaders = { 'content-type': 'application/json', ...headersFor(BODY) };
      expect(outcome(BODY, node)).toBe('ok');
      expect(outcome(BODY, new Headers(headersFor(BODY)))).toBe('ok');
      expect(outcome(BODY, new Headers({ 'webhook-id': ID }))).toBe('MissingHeader');
    });

    it('reads several webhook-signature values as one list; several ids or timestamps are invalid', () => {
      const headers = headersFor(BODY);
      expect(outcome(BODY, { ...headers, 'webhook-signature': ['v2,abc', headers['webhook-signature']] })).toBe('ok');
      expect(outcome(BODY, { ...headers, 'webhook-signature': [headers['webhook-signature']] })).toBe('ok');
      expect(outcome(BODY, { ...headers, 'webhook-id': [ID, ID] })).toBe('InvalidHeader');
      expect(outcome(BODY, { ...headers, 'webhook-timestamp': [String(T), String(T)] })).toBe('InvalidHeader');
    });

    it.each([['evt_1'], ['msg_'], [`msg_${'a'.repeat(65)}`], ['msg_a-b'], [' msg_a']])(
      'refuses the webhook-id %j, naming the rule',
      (id) => {
        const headers = headersFor(BODY, { id });
        expect(outcome(BODY, headers)).toBe('InvalidHeader');
        expect(() => verifyWebhook(BODY, headers, SECRET, { now })).toThrow(
          /^webhook-id: expected msg_ and 1–64 characters from A–Z a–z 0–9/,
        );
      },
    );

    it.each([['1.7e9'], [`${T}.0`], ['-1'], ['0x10'], [` ${T}`], [`${T} `], ['0'], ['99999999999999999'], ['now']])(
      'refuses the webhook-timestamp %j',
      (timestamp) => {
        expect(outcome(BODY, headersFor(BODY, { timestamp }))).toBe('InvalidHeader');
      },
    );

    it('checks the headers before the signature, and the signature before the payload', () => {
      const unsigned = { ...headersFor(BODY), 'webhook-signature': 'v1,AAAA' };
      expect(outcome('not json', { ...unsigned, 'webhook-id': 'nope' })).toBe('InvalidHeader');
      expect(outcome('not json', { ...unsigned, 'webhook-timestamp': String(T - 3600) })).toBe('TimestampTooOld');
      expect(outcome('not json', unsigned)).toBe('NoMatchingSignature');
    });
  });

  describe('tolerance', () => {
    it.each([
      [0, 0, 'ok'],
      [0, -1, 'TimestampTooOld'],
      [0, 1, 'TimestampTooNew'],
      [60, -60, 'ok'],
      [60, -61, 'TimestampTooOld'],
      [3600, 3600, 'ok'],
    ] as const)('with toleranceSeconds %i, a timestamp %i s from now is %s', (tolerance, skew, expected) => {
      expect(outcome(BODY, headersFor(BODY, { timestamp: T + skew }), SECRET, tolerance)).toBe(expected);
    });

    it('counts whole seconds of now (the sub-second part of the clock is dropped)', () => {
      const late = () => new Date((T + 300) * 1000 + 999);
      expect(verifyWebhook(BODY, headersFor(BODY), SECRET, { now: late }).id).toBe(ID);
    });

    it('says how far off the timestamp is', () => {
      expect(() => verifyWebhook(BODY, headersFor(BODY, { timestamp: T - 400 }), SECRET, { now })).toThrow(
        `webhook-timestamp ${T - 400} is 400 s in the past; the tolerance is 300 s`,
      );
    });
  });

  describe('payload', () => {
    const signedOutcome = (body: string | Uint8Array) => {
      try {
        verifyWebhook(body, headersFor(body), SECRET, { now });
        return undefined;
      } catch (error) {
        if (!(error instanceof WebhookVerificationError)) throw error;
        return { reason: error.reason, problems: error.problems, webhookId: error.webhookId };
      }
    };

    it.each([
      ['not JSON', 'not json', /^the body is not JSON/],
      ['empty', '', /^the body is not JSON/],
      [
        'an unknown event type',
        '{"type":"plant.moved","timestamp":"2026-11-24T10:00:00.123Z","data":{"id":7}}',
        /^body\.type: expected one of plant\.created, plant\.updated, plant\.deleted/,
      ],
      [
        'a plant without a name',
        '{"type":"plant.created","timestamp":"2026-11-24T10:00:00.123Z","data":{"id":7}}',
        /^body\.data\.name: required$/,
      ],
      [
        'a timestamp without milliseconds',
        '{"type":"plant.deleted","timestamp":"2026-11-24T10:00:00Z","data":{"id":7}}',
        /^body\.timestamp: expected an RFC 3339/,
      ],
    ])('refuses a signed body that is %s, with the verified id and readable problems', (_what, body, problem) => {
      const result = signedOutcome(body);
      expect(result?.reason).toBe('InvalidPayload');
      expect(result?.webhookId).toBe(ID);
      expect(result?.problems[0]).toMatch(problem);
    });

    it('refuses signed bytes that are not UTF-8', () => {
      expect(signedOutcome(Buffer.from([0x7b, 0xff, 0x7d]))).toEqual({
        reason: 'InvalidPayload',
        problems: ['the body is not valid UTF-8'],
        webhookId: ID,
      });
    });

    it('ignores members it does not know (a newer server may add some)', () => {
      const body =
        '{"type":"plant.deleted","timestamp":"2026-11-24T10:00:00.123Z","data":{"id":7,"name":"Fern"},"extra":1}';
      expect(verifyWebhook(body, headersFor(body), SECRET, { now }).event).toEqual({
        type: 'plant.deleted',
        timestamp: '2026-11-24T10:00:00.123Z',
        data: { id: 7 },
      });
    });
  });

  describe('defects', () => {
    it.each([
      ['an empty secret', 'whsec_'],
      ['an empty bare secret', ''],
      ['a secret that is not base64', 'whsec_not base64!'],
      ['an unpadded secret', `whsec_${Buffer.from('abcd').toString('base64').replace(/=+$/, '')}`],
      ['base64url', `whsec_${Buffer.alloc(32, 0xfb).toString('base64url')}=`],
    ])('throws a TypeError for %s, without echoing it', (_what, secret) => {
      expect(() => verifyWebhook(BODY, headersFor(BODY), secret, { now })).toThrow(TypeError);
      expect(() => verifyWebhook(BODY, headersFor(BODY), [SECRET, secret], { now })).toThrow(
        'verifyWebhook: secret 2 is not whsec_ followed by base64',
      );
    });

    it('throws a TypeError for no secret, a bad tolerance or a bad clock', () => {
      expect(() => verifyWebhook(BODY, headersFor(BODY), [], { now })).toThrow(TypeError);
      expect(() => verifyWebhook(BODY, headersFor(BODY), SECRET, { now, toleranceSeconds: -1 })).toThrow(TypeError);
      expect(() => verifyWebhook(BODY, headersFor(BODY), SECRET, { now, toleranceSeconds: Number.NaN })).toThrow(
        TypeError,
      );
      expect(() => verifyWebhook(BODY, headersFor(BODY), SECRET, { now: () => new Date(Number.NaN) })).toThrow(
        TypeError,
      );
    });

    it('is not a PlantStoreError but an Error of its own', () => {
      const error = new WebhookVerificationError('MissingHeader', 'missing the webhook-id header');
      expect(error).toBeInstanceOf(Error);
      expect(error.name).toBe('WebhookVerificationError');
      expect(error).not.toHaveProperty('_tag');
    });
  });

  it('verifies the worked example of the OpenAPI document', () => {
    const { WebhookId, WebhookTimestamp, WebhookSignature } = openApiDocument.components.parameters;
    const secret = /the secret `(whsec_[A-Za-z0-9+/=]+)`/.exec(WebhookSignature.description)?.[1];
    const body = /the body `([^`]+)`/.exec(WebhookSignature.description)?.[1];
    if (secret === undefined || body === undefined) throw new TypeError('the signature description lost its example');
    const headers = {
      'webhook-id': WebhookId.example,
      'webhook-timestamp': WebhookTimestamp.example,
      'webhook-signature': WebhookSignature.example,
    };
    const verified = verifyWebhook(body, headers, secret, {
      now: () => new Date(Number(WebhookTimestamp.example) * 1000),
    });
    expect(verified.event).toEqual(
      openApiDocument.webhooks['plant.created'].post.requestBody.content['application/json'].example,
    );
    expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
  });
});

describe('verifyWebhookEither', () => {
  it('gives the verified webhook as a Right and a refusal as a Left', () => {
    expect(verifyWebhookEither(BODY, headersFor(BODY), SECRET, { now })).toEqual({
      _tag: 'Right',
      right: { id: ID, sentAt: new Date(T * 1000), event: EVENT },
    });
    const refused = verifyWebhookEither(BODY, headersFor(BODY), OTHER_SECRET, { now });
    expect(E.isLeft(refused) && refused.left.reason).toBe('NoMatchingSignature');
  });
});

describe('the README receiver', () => {
  // The node:http handler of README.md § "Verifying webhooks", called with a request stream.
  const handled: string[] = [];
  const secrets = [SECRET];
  const seen = new Set<string>();
  const handle = (event: VerifiedWebhook['event']) =>
    void handled.push(event.type === 'plant.created' ? `created ${event.data.name}` : `deleted ${event.data.id}`);
  const receive = async (
    req: Readable & { headers: IncomingHttpHeaders },
    res: { writeHead(status: number): { end(): void } },
  ) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks); // the raw bytes, exactly as received
    let webhook;
    try {
      webhook = verifyWebhook(body, req.headers, secrets, { now }); // README: no `now`
    } catch (error) {
      if (error instanceof WebhookVerificationError) return res.writeHead(400).end();
      throw error;
    }
    if (!seen.has(webhook.id)) {
      seen.add(webhook.id); // in production: a unique key in your database
      handle(webhook.event);
    }
    res.writeHead(204).end();
  };

  const request = (body: string, headers: IncomingHttpHeaders) =>
    Object.assign(Readable.from([Buffer.from(body.slice(0, 10)), Buffer.from(body.slice(10))]), { headers });
  const response = () => {
    const statuses: number[] = [];
    return { statuses, res: { writeHead: (status: number) => (statuses.push(status), { end: () => undefined }) } };
  };

  it('acts on a delivery once, acknowledges duplicates, and refuses a forgery', async () => {
    const first = response();
    await receive(request(BODY, headersFor(BODY)), first.res);
    const again = response();
    await receive(request(BODY, headersFor(BODY, { timestamp: T + 5 })), again.res);
    const forged = response();
    await receive(request(BODY, headersFor(BODY, { secret: OTHER_SECRET })), forged.res);
    expect([first.statuses, again.statuses, forged.statuses]).toEqual([[204], [204], [400]]);
    expect(handled).toEqual(['created Fern']);
  });
});

it('accepts any key length the package does', () => {
  // The server's secrets are 32 bytes; the scheme itself takes any non-empty key.
  for (const length of [1, 16, 32, 64, 100]) {
    const secret = secretOf(randomBytes(length));
    expect(outcome(BODY, headersFor(BODY, { secret }), secret)).toBe('ok');
  }
});
