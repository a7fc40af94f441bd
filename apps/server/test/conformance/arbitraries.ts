/**
 * fast-check arbitraries drawn from JSON Schemas of the document: values a schema admits, and
 * values that break exactly one of its rules (with the rule named, for the failure report).
 * Every candidate is checked with the document's own validator (Ajv), so a generator can only
 * propose: the schema decides.
 */
import fc from 'fast-check';
import type { Document, Schema } from './document.js';

/** A value and the rule of the document it breaks. */
export interface Broken<A> {
  readonly rule: string;
  readonly value: A;
}

const codePoints = (s: string): number => [...s].length;

/** No lone surrogate (`String.prototype.isWellFormed` is ES2024, beyond this project's lib). */
const wellFormed = (s: string): boolean => !/\p{Surrogate}/u.test(s);

/** Characters that sit on the edges of text rules: controls, every kind of space, astral ones. */
const edgeCharacters = [
  ' ',
  '\t',
  '\n',
  '\u000b',
  '\f',
  '\r',
  '\u0085',
  '\u00a0',
  '\u1680',
  '\u2000',
  '\u200a',
  '\u200b',
  '\u2028',
  '\u2029',
  '\u202f',
  '\u205f',
  '\u3000',
  '\ufeff',
  '\u0000',
  '\u001f',
  '\u007f',
  '\u0080',
  'a',
  'Z',
  '0',
  '-',
  '"',
  '\\',
  '/',
  'é',
  '🌵',
  '中',
];

const numberBound = (schema: Schema, key: 'minimum' | 'maximum', fallback: number): number => {
  const value = schema[key];
  return typeof value === 'number' ? value : fallback;
};

/** Integers of the schema, biased to its low end so that ids often name plants that exist. */
const integers = (schema: Schema): fc.Arbitrary<number> => {
  const min = numberBound(schema, 'minimum', Number.MIN_SAFE_INTEGER);
  const max = numberBound(schema, 'maximum', Number.MAX_SAFE_INTEGER);
  return fc.oneof(
    fc.integer({ min, max: Math.min(max, min + 40) }),
    fc.constantFrom(min, max),
    fc.maxSafeInteger().filter((n) => n >= min && n <= max),
  );
};

/**
 * Boundary values of a pattern: for a few characters, the longest run of that one character the
 * pattern admits (`9999999999999999` for `^[1-9][0-9]{0,15}$`). Random draws rarely reach them.
 */
const longestRuns = (pattern: RegExp, maxLength: number): string[] => {
  const runs: string[] = [];
  for (const c of ['9', '1', 'z', 'Z', '~', '-', 'é', '🌵']) {
    let longest = '';
    for (let n = 1; n <= Math.min(maxLength, 300); n++) if (pattern.test(c.repeat(n))) longest = c.repeat(n);
    if (longest !== '') runs.push(longest);
  }
  return runs;
};

const shortMatches = (pattern: RegExp): fc.Arbitrary<string> | undefined => {
  try {
    return fc.stringMatching(pattern, { maxLength: 4 });
  } catch {
    return undefined;
  }
};

/** Strings of the schema: proposals from several generators, kept when the schema admits them. */
const strings = (schema: Schema, admits: (u: unknown) => boolean): fc.Arbitrary<string> => {
  const minLength = typeof schema['minLength'] === 'number' ? schema['minLength'] : 0;
  const maxLength = typeof schema['maxLength'] === 'number' ? schema['maxLength'] : 64;
  const pattern = typeof schema['pattern'] === 'string' ? new RegExp(schema['pattern'], 'u') : undefined;
  const proposals = [
    fc.string({ unit: 'binary', minLength, maxLength }),
    fc.string({ unit: 'grapheme', minLength, maxLength }),
    fc
      .array(fc.constantFrom(...edgeCharacters), { minLength, maxLength: Math.min(maxLength, 12) })
      .map((parts) => parts.join('')),
    fc.constantFrom('a'.repeat(Math.max(minLength, 1)), '🌵'.repeat(maxLength), 'a'.repeat(maxLength)),
  ];
  if (pattern !== undefined) {
    // Matches of every length the pattern allows, and runs of one match repeated up to the
    // longest: the long end (`99999…`) is where a pattern and a range disagree.
    const matches = fc.stringMatching(pattern, { size: 'max', maxLength });
    proposals.push(matches);
    // fast-check cannot bound every pattern to 4 characters (a list of quoted entity tags has
    // nested runs): such a pattern gets no repeated runs, only the matches above.
    const short = shortMatches(pattern);
    if (short !== undefined) {
      const repeated = fc
        .tuple(
          short.filter((s) => s !== ''),
          fc.integer({ min: 1, max: Math.min(maxLength, 256) }),
        )
        .map(([s, n]) => s.repeat(Math.ceil(n / s.length)).slice(0, n));
      proposals.push(repeated);
    }
    const longest = longestRuns(pattern, maxLength);
    if (longest.length > 0) proposals.push(fc.constantFrom(...longest));
  }
  return fc.oneof(...proposals).filter((s) => wellFormed(s) && codePoints(s) >= minLength && admits(s));
};

/** Values the schema admits (objects, arrays, strings, integers, booleans, enums). */
export const valid = (doc: Document, schemaOrRef: Schema): fc.Arbitrary<unknown> => {
  const schema = doc.resolveSchema(schemaOrRef);
  const admits = doc.validator(schemaOrRef);
  if (Array.isArray(schema['enum'])) return fc.constantFrom(...(schema['enum'] as unknown[]));
  if (Array.isArray(schema['anyOf']))
    return fc.oneof(...(schema['anyOf'] as Schema[]).map((alternative) => valid(doc, alternative)));
  switch (schema['type']) {
    case 'null':
      return fc.constant(null);
    case 'integer':
      return integers(schema);
    case 'string':
      return strings(schema, (u) => admits(u));
    case 'boolean':
      return fc.boolean();
    case 'array': {
      const items = valid(doc, (schema['items'] ?? {}) as Schema);
      const minLength = typeof schema['minItems'] === 'number' ? schema['minItems'] : 0;
      const maxLength = Math.max(
        minLength,
        Math.min(typeof schema['maxItems'] === 'number' ? schema['maxItems'] : 5, 5),
      );
      return fc.array(items, { minLength, maxLength });
    }
    case 'object': {
      const properties = (schema['properties'] ?? {}) as Record<string, Schema>;
      const required = new Set((schema['required'] ?? []) as string[]);
      const record: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [name, property] of Object.entries(properties)) record[name] = valid(doc, property);
      return fc.record(record, { requiredKeys: [...required] }).filter((value) => admits(value));
    }
    default:
      throw new TypeError(`no generator for schema ${JSON.stringify(schema)}`);
  }
};

/** Values of other JSON types than the schema's: each breaks its `type`. */
const otherTypes = (schema: Schema): Array<Broken<unknown>> => {
  const all: Array<[string, unknown]> = [
    ['string', '7'],
    ['integer', 7],
    ['number', 1.5],
    ['boolean', true],
    ['null', null],
    ['array', []],
    ['object', {}],
  ];
  const types = Array.isArray(schema['type']) ? (schema['type'] as string[]) : [String(schema['type'])];
  return all
    .filter(([name]) => !types.includes(name) && !(types.includes('number') && name === 'integer'))
    .map(([name, value]) => ({ rule: `type ${types.join(' or ')}, sent ${name}`, value }));
};

/** Values of the schema's own type that cross one of its bounds or break its pattern. */
const crossedBounds = (doc: Document, schema: Schema): Array<Broken<unknown>> => {
  const broken: Array<Broken<unknown>> = [];
  if (schema['type'] === 'integer') {
    if (typeof schema['minimum'] === 'number')
      broken.push({ rule: `minimum ${schema['minimum']}`, value: schema['minimum'] - 1 });
    if (typeof schema['maximum'] === 'number')
      broken.push({ rule: `maximum ${schema['maximum']}`, value: schema['maximum'] + 1 });
  }
  if (schema['type'] === 'string') {
    const min = typeof schema['minLength'] === 'number' ? schema['minLength'] : 0;
    const max = typeof schema['maxLength'] === 'number' ? schema['maxLength'] : undefined;
    if (min > 0) broken.push({ rule: `minLength ${min}`, value: 'a'.repeat(min - 1) });
    if (max !== undefined)
      broken.push(
        { rule: `maxLength ${max}`, value: 'a'.repeat(max + 1) },
        { rule: `maxLength ${max} (code points)`, value: '🌵'.repeat(max + 1) },
      );
    if (typeof schema['pattern'] === 'string') {
      const admits = doc.validator(schema);
      // Strings of an admitted length that the pattern refuses.
      for (const candidate of [' ', '\u3000', '\t', 'a\u0001b', 'a\u007f', 'a b', 'a!b', 'a\u00e9b', '\u2028']) {
        const length = codePoints(candidate);
        if (length >= Math.max(min, 1) && (max === undefined || length <= max) && !admits(candidate)) {
          broken.push({ rule: `pattern ${schema['pattern']}`, value: candidate });
        }
      }
    }
  }
  return broken;
};

/** Every single-rule break of a value of `schemaOrRef`, as a list to draw from. */
export const brokenValues = (doc: Document, schemaOrRef: Schema): Array<Broken<unknown>> => {
  const schema = doc.resolveSchema(schemaOrRef);
  if (Array.isArray(schema['anyOf'])) {
    // What breaks one alternative and no other admits (null is a tag's alternative, not a break).
    const admits = doc.validator(schemaOrRef);
    return (schema['anyOf'] as Schema[])
      .flatMap((alternative) => brokenValues(doc, alternative))
      .filter(({ value }) => !admits(value));
  }
  return [...otherTypes(schema), ...crossedBounds(doc, schema)];
};

/**
 * An object of the schema with one rule broken: a member of the wrong type or out of bounds, an
 * unknown member (when `additionalProperties` is false), a required member left out, or not an
 * object at all.
 */
export const brokenObject = (doc: Document, schemaOrRef: Schema): fc.Arbitrary<Broken<unknown>> => {
  const schema = doc.resolveSchema(schemaOrRef);
  const properties = (schema['properties'] ?? {}) as Record<string, Schema>;
  const required = (schema['required'] ?? []) as string[];
  const base = valid(doc, schema) as fc.Arbitrary<Record<string, unknown>>;
  const kinds: Array<fc.Arbitrary<Broken<unknown>>> = [fc.constantFrom(...otherTypes(schema))];
  for (const [name, property] of Object.entries(properties)) {
    const breaks = brokenValues(doc, property);
    kinds.push(
      fc
        .tuple(base, fc.constantFrom(...breaks))
        .map(([value, broken]) => ({ rule: `${name}: ${broken.rule}`, value: { ...value, [name]: broken.value } })),
    );
  }
  for (const name of required) {
    kinds.push(
      base.map((value) => {
        const { [name]: _left, ...rest } = value;
        return { rule: `${name} is required`, value: rest };
      }),
    );
  }
  if (schema['additionalProperties'] === false) {
    const unknownName = fc
      .string({ minLength: 1, maxLength: 12 })
      .filter((name) => !(name in properties) && name !== '__proto__');
    kinds.push(
      fc
        .tuple(base, unknownName)
        .map(([value, name]) => ({ rule: `additionalProperties false (${name})`, value: { ...value, [name]: 1 } })),
    );
  }
  return fc.oneof(...kinds);
};

/**
 * An array of the schema with one rule broken: not an array at all, fewer items than `minItems`,
 * more than `maxItems`, or one item (at any place) broken as brokenObject breaks an object.
 */
export const brokenArray = (doc: Document, schemaOrRef: Schema): fc.Arbitrary<Broken<unknown>> => {
  const schema = doc.resolveSchema(schemaOrRef);
  const items = (schema['items'] ?? {}) as Schema;
  const base = valid(doc, schema) as fc.Arbitrary<unknown[]>;
  const kinds: Array<fc.Arbitrary<Broken<unknown>>> = [fc.constantFrom(...otherTypes(schema))];
  if (typeof schema['minItems'] === 'number' && schema['minItems'] > 0)
    kinds.push(fc.constant({ rule: `minItems ${schema['minItems']}`, value: [] }));
  if (typeof schema['maxItems'] === 'number') {
    const max = schema['maxItems'];
    kinds.push(
      valid(doc, items).map((item) => ({
        rule: `maxItems ${max}`,
        value: Array.from({ length: max + 1 }, () => item),
      })),
    );
  }
  kinds.push(
    fc.tuple(base, brokenObject(doc, items), fc.nat()).map(([value, broken, at]) => {
      const place = at % (value.length + 1);
      return {
        rule: `items[${place}] ${broken.rule}`,
        value: [...value.slice(0, place), broken.value, ...value.slice(place)],
      };
    }),
  );
  return fc.oneof(...kinds);
};

/** A request body of the schema (an object or an array of them) with one rule broken. */
export const brokenBody = (doc: Document, schemaOrRef: Schema): fc.Arbitrary<Broken<unknown>> =>
  doc.resolveSchema(schemaOrRef)['type'] === 'array' ? brokenArray(doc, schemaOrRef) : brokenObject(doc, schemaOrRef);
