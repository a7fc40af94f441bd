import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { plantFromRow, plantFromRowByCodecs } from './rows.js';

// The fast path of plantFromRow against the codecs it stands in for: on any row, valid or not,
// the same plant or the same refusal.

const idText = fc.oneof(
  fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }).map(String),
  fc.constantFrom('0', '-1', '01', '9007199254740992', '99999999999999999', '1.0', ' 1', '1e3', ''),
  fc.string({ maxLength: 4 }),
);
const text = fc.oneof(
  fc.string({ minLength: 1, maxLength: 12 }),
  fc.constantFrom('', ' ', 'a\u0000b', '\u200b', 'x'.repeat(201), 'Fern', 'ÿ\ud800'),
);
const row = fc.record({
  id: fc.oneof(idText, fc.integer(), fc.constant(null)),
  name: fc.oneof(text, fc.constant(null), fc.integer()),
  tag: fc.oneof(text, fc.constant(null), fc.integer()),
});

describe('plantFromRow (PostgreSQL)', () => {
  it('answers as the codecs do, for any row', () => {
    fc.assert(
      fc.property(row, (r) => {
        expect(plantFromRow(r)).toEqual(plantFromRowByCodecs(r));
      }),
      { numRuns: 2_000 },
    );
  });

  it('reads int8 text as a number and a NULL tag as no tag', () => {
    expect(plantFromRow({ id: '9007199254740991', name: 'Fern', tag: null })).toEqual({
      _tag: 'Right',
      right: { id: Number.MAX_SAFE_INTEGER, name: 'Fern' },
    });
  });
});
