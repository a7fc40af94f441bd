import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { describeValue } from './describe-value.js';
import { decodeWith } from './report.js';
import {
  PlantCreatedEvent,
  PlantDeletedEvent,
  WEBHOOK_EVENT_TYPES,
  WebhookEvent,
  webhookEventBody,
  WebhookEventType,
  WebhookId,
  WebhookTimestamp,
} from './webhook-event.js';

const invalid = (...problems: string[]) => E.left({ _tag: 'InvalidPlant', problems });
const decodeEvent = decodeWith(WebhookEvent, 'body');
const at = '2026-11-24T10:00:00.123Z';
const decodeOrThrow = (u: unknown): WebhookEvent => {
  const decoded = WebhookEvent.decode(u);
  if (E.isLeft(decoded)) throw new TypeError('test input does not decode');
  return decoded.right;
};

describe('WebhookEventType', () => {
  it.each(WEBHOOK_EVENT_TYPES)('accepts %s', (type) => {
    expect(WebhookEventType.decode(type)).toEqual(E.right(type));
  });

  it.each([['plant.moved'], ['Plant.Created'], ['plant.created '], [''], [null], [1]])(
    'rejects %j, naming the known types',
    (input) => {
      expect(decodeWith(WebhookEventType, 'type')(input)).toEqual(
        invalid(`type: expected one of plant.created, plant.updated, plant.deleted, got ${describeValue(input)}`),
      );
    },
  );
});

describe('WebhookId', () => {
  it.each([['msg_a'], ['msg_0'], [`msg_${'Z'.repeat(64)}`], ['msg_2KWPBgLlAfxdpx2AI54pPJ85f4W']])(
    'accepts %s',
    (id) => {
      expect(WebhookId.decode(id)).toEqual(E.right(id));
    },
  );

  it.each([
    ['msg_'],
    ['msg'],
    ['MSG_abc'],
    ['evt_abc'],
    [`msg_${'Z'.repeat(65)}`],
    ['msg_a-b'],
    ['msg_a_b'],
    ['msg_é'],
    [' msg_a'],
    ['msg_a\n'],
    [42],
  ])('rejects %j', (input) => {
    expect(decodeWith(WebhookId, 'id')(input)).toEqual(
      invalid(`id: expected msg_ and 1–64 characters from A–Z a–z 0–9, got ${describeValue(input)}`),
    );
  });
});

describe('WebhookTimestamp', () => {
  it.each([
    [at],
    ['2024-02-29T23:59:59.999Z'],
    ['1970-01-01T00:00:00.000Z'],
    ['0000-01-01T00:00:00.000Z'],
    ['9999-12-31T23:59:59.999Z'],
  ])('accepts %s', (timestamp) => {
    expect(WebhookTimestamp.decode(timestamp)).toEqual(E.right(timestamp));
  });

  it('accepts what Date#toISOString writes for any instant of years 0–9999', () => {
    fc.assert(
      fc.property(
        fc.date({
          min: new Date('0000-01-01T00:00:00.000Z'),
          max: new Date('9999-12-31T23:59:59.999Z'),
          noInvalidDate: true,
        }),
        (date) => WebhookTimestamp.is(date.toISOString()),
      ),
    );
  });

  it.each([
    ['no milliseconds', '2026-11-24T10:00:00Z'],
    ['microseconds', '2026-11-24T10:00:00.123456Z'],
    ['two fractional digits', '2026-11-24T10:00:00.12Z'],
    ['an offset', '2026-11-24T10:00:00.123+00:00'],
    ['a lower-case z', '2026-11-24T10:00:00.123z'],
    ['a lower-case t', '2026-11-24t10:00:00.123Z'],
    ['a space for T', '2026-11-24 10:00:00.123Z'],
    ['no zone', '2026-11-24T10:00:00.123'],
    ['February 30', '2026-02-30T10:00:00.123Z'],
    ['February 29 of a common year', '2026-02-29T10:00:00.123Z'],
    ['month 13', '2026-13-01T10:00:00.123Z'],
    ['hour 24', '2026-11-24T24:00:00.000Z'],
    ['second 60', '2026-12-31T23:59:60.000Z'],
    ['an expanded year', '+012026-11-24T10:00:00.123Z'],
    ['a date only', '2026-11-24'],
    ['a trailing newline', `${at}\n`],
    ['epoch milliseconds', 1_795_000_000_123],
  ])('rejects %s', (_what, input) => {
    expect(E.isLeft(WebhookTimestamp.decode(input))).toBe(true);
  });

  it('names the expected form', () => {
    expect(decodeWith(WebhookTimestamp, 'timestamp')('2026-11-24T10:00:00Z')).toEqual(
      invalid(
        'timestamp: expected an RFC 3339 UTC time with milliseconds such as 2026-11-24T10:00:00.123Z, got a string "2026-11-24T10:00:00Z"',
      ),
    );
  });
});

describe('WebhookEvent', () => {
  const created = { type: 'plant.created', timestamp: at, data: { id: 7, name: 'Fern', tag: 'shade' } };
  const deleted = { type: 'plant.deleted', timestamp: at, data: { id: 7 } };

  it('decodes plant.created with and without a tag', () => {
    expect(decodeEvent(created)).toEqual(E.right(created));
    const untagged = { ...created, data: { id: 1, name: 'Monstera' } };
    expect(decodeEvent(untagged)).toEqual(E.right(untagged));
    expect(PlantCreatedEvent.is(created)).toBe(true);
  });

  it('decodes plant.deleted', () => {
    expect(decodeEvent(deleted)).toEqual(E.right(deleted));
    expect(PlantDeletedEvent.is(deleted)).toBe(true);
    expect(PlantDeletedEvent.is(created)).toBe(false);
  });

  it('drops members it does not know, at the top and in data (a newer server may add some)', () => {
    expect(decodeEvent({ ...created, version: 2, data: { ...created.data, etag: '"1"' } })).toEqual(E.right(created));
    expect(decodeEvent({ ...deleted, data: { id: 7, name: 'Fern' } })).toEqual(E.right(deleted));
  });

  it('tells the types apart by type alone: an unknown type is one message', () => {
    expect(decodeEvent({ ...created, type: 'plant.moved' })).toEqual(
      invalid('body.type: expected one of plant.created, plant.updated, plant.deleted, got a string "plant.moved"'),
    );
    expect(decodeEvent({ timestamp: at, data: {} })).toEqual(
      invalid('body.type: expected one of plant.created, plant.updated, plant.deleted, got nothing'),
    );
  });

  it.each([
    ['a plant.created whose data is only an id', { ...created, data: { id: 7 } }, ['body.data.name: required']],
    ['a plant.deleted without data', { type: 'plant.deleted', timestamp: at }, ['body.data: required']],
    [
      'a bad id',
      { ...deleted, data: { id: 0 } },
      ['body.data.id: expected an integer from 1 to 9007199254740991, got 0'],
    ],
    [
      'a null tag',
      { ...created, data: { id: 7, name: 'Fern', tag: null } },
      ['body.data.tag: expected a string, got null'],
    ],
    [
      'a timestamp without milliseconds',
      { ...deleted, timestamp: '2026-11-24T10:00:00Z' },
      [
        'body.timestamp: expected an RFC 3339 UTC time with milliseconds such as 2026-11-24T10:00:00.123Z, got a string "2026-11-24T10:00:00Z"',
      ],
    ],
    ['no timestamp', { type: 'plant.deleted', data: { id: 7 } }, ['body.timestamp: required']],
  ])('rejects %s', (_what, input, problems) => {
    expect(decodeEvent(input)).toEqual(invalid(...problems));
  });

  it.each([[null], [[]], ['plant.created'], [7]])('rejects %j as not an object', (input) => {
    expect(E.isLeft(decodeEvent(input))).toBe(true);
    expect(WebhookEvent.is(input)).toBe(false);
  });
});

describe('webhookEventBody', () => {
  it('writes compact JSON in the server’s member order', () => {
    const event = decodeOrThrow({ data: { tag: 'shade', name: 'Fern', id: 7 }, timestamp: at, type: 'plant.created' });
    expect(webhookEventBody(event)).toBe(
      '{"type":"plant.created","timestamp":"2026-11-24T10:00:00.123Z","data":{"id":7,"name":"Fern","tag":"shade"}}',
    );
  });

  it('omits an absent tag', () => {
    const event = decodeOrThrow({ type: 'plant.created', timestamp: at, data: { id: 1, name: 'Monstera' } });
    expect(webhookEventBody(event)).toBe(
      '{"type":"plant.created","timestamp":"2026-11-24T10:00:00.123Z","data":{"id":1,"name":"Monstera"}}',
    );
  });

  it('writes plant.deleted with only the id', () => {
    const event = decodeOrThrow({ type: 'plant.deleted', timestamp: at, data: { id: 9007199254740991 } });
    expect(webhookEventBody(event)).toBe(
      '{"type":"plant.deleted","timestamp":"2026-11-24T10:00:00.123Z","data":{"id":9007199254740991}}',
    );
  });

  it('leaves out members the codecs do not know, even when the type system let them through', () => {
    const event = {
      type: 'plant.deleted',
      timestamp: at,
      data: { id: 3, name: 'x' },
      extra: true,
    } as unknown as WebhookEvent;
    expect(webhookEventBody(event)).toBe(
      '{"type":"plant.deleted","timestamp":"2026-11-24T10:00:00.123Z","data":{"id":3}}',
    );
  });

  it('escapes text as JSON.stringify does and round-trips through the codec', () => {
    const name = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 });
    const timestamp = fc
      .date({ min: new Date(0), max: new Date('9999-12-31T23:59:59.999Z'), noInvalidDate: true })
      .map((d) => d.toISOString());
    const id = fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER });
    const input = fc.oneof(
      fc.record({
        type: fc.constant('plant.created'),
        timestamp,
        data: fc.record({ id, name, tag: name }, { requiredKeys: ['id', 'name'] }),
      }),
      fc.record({ type: fc.constant('plant.deleted'), timestamp, data: fc.record({ id }) }),
    );
    fc.assert(
      fc.property(input, (raw) => {
        const decoded = WebhookEvent.decode(raw);
        fc.pre(E.isRight(decoded)); // a generated name the text rule refuses
        if (E.isLeft(decoded)) return;
        const body = webhookEventBody(decoded.right);
        expect(JSON.parse(body)).toEqual(raw);
        expect(WebhookEvent.decode(JSON.parse(body))).toEqual(decoded);
        expect(Object.keys(JSON.parse(body) as object)).toEqual(['type', 'timestamp', 'data']);
        expect(body).toBe(JSON.stringify(JSON.parse(body)));
      }),
    );
  });
});
