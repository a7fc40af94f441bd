import * as t from 'io-ts';
import { describe, expect, it } from 'vitest';
import { countOf, idStateFromRow, rowReaders } from './data-rows.js';

// The forms of the stores' own codecs (sqlite/data.ts, postgres/data.ts) stand in here: a list as
// space-separated text, a flag as 0 or 1.
const read = rowReaders({
  list: new t.Type<readonly string[], string, unknown>(
    'List',
    t.readonlyArray(t.string).is,
    (u, c) => (typeof u === 'string' ? t.success(u === '' ? [] : u.split(' ')) : t.failure(u, c, 'expected a list')),
    (list) => list.join(' '),
  ),
  flag: new t.Type<boolean, number, unknown>(
    'Flag',
    t.boolean.is,
    (u, c) => (u === 0 || u === 1 ? t.success(u === 1) : t.failure(u, c, 'expected 0 or 1')),
    (flag) => (flag ? 1 : 0),
  ),
});

const endpoint = {
  id: 'ep_1',
  url: 'https://example.com/hook',
  events: 'plant.created plant.deleted',
  secret: 'whsec_x',
  previous_secret: null,
  rotated_at: null,
  enabled: 1,
  disabled_reason: null,
  created_at: 1_700_000_000_000,
};

describe('rowReaders', () => {
  it('names the columns as the store-neutral rows do, lists and flags through the store codecs', () => {
    expect(read.plants({ id: 7, name: 'Fern', tag: null, version: 3 })).toEqual({
      id: 7,
      name: 'Fern',
      tag: null,
      version: 3,
    });
    expect(read.webhook_endpoints(endpoint)).toEqual({
      id: 'ep_1',
      url: 'https://example.com/hook',
      events: ['plant.created', 'plant.deleted'],
      secret: 'whsec_x',
      previousSecret: null,
      rotatedAt: null,
      enabled: true,
      disabledReason: null,
      createdAt: 1_700_000_000_000,
    });
    expect(read.webhook_endpoints({ ...endpoint, events: null, enabled: 0 })).toMatchObject({
      events: null,
      enabled: false,
    });
  });

  // What Number() and String() used to make of these: 0, "null", 12, "[object Object]"…
  it.each([
    ['plants', { id: 7, name: 'Fern', tag: null, version: null }, 'version'],
    ['plants', { id: 7, name: null, tag: null, version: 1 }, 'name'],
    ['plants', { id: '12', name: 'Fern', tag: null, version: 1 }, 'id'],
    ['plants', { id: 12n, name: 'Fern', tag: null, version: 1 }, 'id'],
    ['plants', { id: 7, name: 'Fern', version: 1 }, 'tag'],
    [
      'idempotency_keys',
      { owner: 'o', key: 'k', request: {}, status: 201, plant_id: 1, expires_at: 1, version: 1 },
      'request',
    ],
  ] as const)('refuses a %s row with a bad column, naming it', (table, row, column) => {
    expect(() => (read[table] as (row: unknown) => unknown)(row)).toThrow(
      new RegExp(`^a row of ${table} does not decode: ${column}: `),
    );
  });

  it('refuses a list or a flag its store does not write', () => {
    expect(() => read.webhook_endpoints({ ...endpoint, events: ['plant.created'] })).toThrow(/events: expected a list/);
    expect(() => read.webhook_endpoints({ ...endpoint, events: 3 })).toThrow(/events: /);
    expect(() => read.webhook_endpoints({ ...endpoint, enabled: 2 })).toThrow(/enabled: expected 0 or 1/);
  });
});

describe('the id state and counts', () => {
  it('reads them', () => {
    expect(countOf({ n: 3 })).toBe(3);
    expect(
      idStateFromRow({
        high_water: 9,
        gap_cursor: 0,
        revision: 12,
        last_seq: 4,
        forgotten_through: 1,
        untagged_through: 2,
      }),
    ).toEqual({
      highWater: 9,
      gapCursor: 0,
      revision: 12,
      changeSeq: 4,
      changesForgottenThrough: 1,
      changesUntaggedThrough: 2,
    });
  });

  it('refuses a missing row or a NULL', () => {
    expect(() => countOf(undefined)).toThrow(/^a row of a count does not decode/);
    expect(() =>
      idStateFromRow({ high_water: 9, gap_cursor: null, revision: 12, last_seq: 4, forgotten_through: 1 }),
    ).toThrow(/gap_cursor: /);
  });
});
