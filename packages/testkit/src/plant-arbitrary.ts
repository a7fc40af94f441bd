import { MAX_NAME_LENGTH, MAX_PLANT_ID, MAX_TAG_LENGTH, type StructType } from '@plant-store/domain';
import fc from 'fast-check';
import type * as t from 'io-ts';

/*
 * Arbitraries derived from the domain's codecs (docs/CONTRIBUTING.md, "A plant travels"): a struct
 * is walked member by member and each member codec is mapped to an arbitrary by its name. A new
 * optional member of a known codec widens the values with no edit here; a member whose codec has
 * no arbitrary throws, naming it, so a new kind of field is noticed the day it is added.
 */

/** The contract's whitespace that is no control character, with U+0085 and U+200B (not whitespace). */
const spaces = [
  0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2005, 0x200a, 0x200b, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff,
];

/** Characters that JSON, SQL and HTML treat specially, and the edges of the allowed ranges. */
const edges = [
  0x22, 0x5c, 0x2f, 0x25, 0x5f, 0x27, 0x3c, 0x26, 0x7e, 0x80, 0x9f, 0xd7ff, 0xe000, 0xfffd, 0xfffe, 0xffff,
];

const isSurrogate = (c: number): boolean => c >= 0xd800 && c <= 0xdfff;

/** Any code point of `plane` (0–16) the text rules allow: no surrogate, no control character. */
const inPlane = (plane: number): fc.Arbitrary<number> =>
  fc
    .integer({ min: plane * 0x10000, max: plane * 0x10000 + 0xffff })
    .filter((c) => !isSurrogate(c) && c > 0x1f && c !== 0x7f);

/** One code point: from every plane of Unicode, with combining marks, spaces and edges weighted up. */
const codePoint: fc.Arbitrary<number> = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 0x20, max: 0x7e }) },
  { weight: 3, arbitrary: inPlane(0) },
  { weight: 3, arbitrary: fc.integer({ min: 0, max: 16 }).chain(inPlane) },
  // Emoji and their modifiers, variation selectors and plane 14's tag characters.
  { weight: 2, arbitrary: fc.integer({ min: 0x1f300, max: 0x1faff }) },
  { weight: 1, arbitrary: fc.integer({ min: 0xe0000, max: 0xe01ef }) },
  // Combining marks: diacritics, their supplement and extension, for symbols and half marks.
  {
    weight: 3,
    arbitrary: fc.oneof(
      fc.integer({ min: 0x0300, max: 0x036f }),
      fc.integer({ min: 0x1ab0, max: 0x1aff }),
      fc.integer({ min: 0x1dc0, max: 0x1dff }),
      fc.integer({ min: 0x20d0, max: 0x20ff }),
      fc.integer({ min: 0xfe20, max: 0xfe2f }),
    ),
  },
  // Compatibility forms NFKC folds (ligatures, full-width, circled, super- and subscripts).
  {
    weight: 1,
    arbitrary: fc.oneof(fc.integer({ min: 0xfb00, max: 0xfb06 }), fc.integer({ min: 0xff01, max: 0xff5e })),
  },
  { weight: 2, arbitrary: fc.constantFrom(...spaces) },
  { weight: 1, arbitrary: fc.constantFrom(...edges) },
);

const hasNonSpace = (s: string): boolean => /\S/u.test(s);

/**
 * Text by the contract's rules for a field of 1…`max` code points: well-formed, no control
 * characters, at least one non-whitespace character; short, long and exactly `max` long.
 */
export const textArbitrary = (max: number): fc.Arbitrary<string> => {
  const points = (minLength: number, maxLength: number, size: fc.SizeForArbitrary) =>
    fc.array(codePoint, { minLength, maxLength, size }).map((cs) => String.fromCodePoint(...cs));
  return fc
    .oneof(
      { weight: 3, arbitrary: points(1, max, 'small') },
      { weight: 2, arbitrary: points(1, max, 'max') },
      { weight: 1, arbitrary: points(max, max, 'max') },
    )
    .filter(hasNonSpace);
};

/** Ids of the contract: 1 … 2^53−1, biased to both ends and to the edges of 32 bits. */
export const plantIdArbitrary: fc.Arbitrary<number> = fc.oneof(
  fc.integer({ min: 1, max: 1000 }),
  fc.constantFrom(1, 2 ** 31 - 1, 2 ** 31, 2 ** 32, MAX_PLANT_ID - 1, MAX_PLANT_ID),
  fc.integer({ min: 1, max: MAX_PLANT_ID }),
);

/** The arbitrary of each member codec the domain declares, by the codec's name. */
const byCodecName: Readonly<Record<string, () => fc.Arbitrary<unknown>>> = {
  PlantName: () => textArbitrary(MAX_NAME_LENGTH),
  PlantTag: () => textArbitrary(MAX_TAG_LENGTH),
  PlantId: () => plantIdArbitrary,
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any struct, whatever its members
type AnyStruct = StructType<any, any>;

const isStruct = (codec: t.Mixed): codec is AnyStruct => (codec as { readonly _tag?: unknown })._tag === 'StructType';

const memberArbitrary = (owner: string, key: string, codec: t.Mixed): fc.Arbitrary<unknown> => {
  if (isStruct(codec)) return arbitraryOf(codec);
  const make = byCodecName[codec.name];
  if (make === undefined) {
    throw new Error(
      `arbitraryOf(${owner}): member "${key}" has codec ${codec.name}, which has no arbitrary; ` +
        'add one to packages/testkit/src/plant-arbitrary.ts',
    );
  }
  return make();
};

/**
 * Values of a struct codec, derived from its declaration: every required member, each optional
 * one present or absent at random (absent means no key, never `undefined`). Throws when a member's
 * codec has no arbitrary.
 */
export const arbitraryOf = <C extends AnyStruct>(codec: C): fc.Arbitrary<t.TypeOf<C>> => {
  const members: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [key, member] of Object.entries(codec.required as t.Props))
    members[key] = memberArbitrary(codec.name, key, member);
  for (const [key, member] of Object.entries(codec.optional as t.Props))
    members[key] = memberArbitrary(codec.name, key, member);
  return fc.record(members, { requiredKeys: Object.keys(codec.required as t.Props) }) as fc.Arbitrary<t.TypeOf<C>>;
};
