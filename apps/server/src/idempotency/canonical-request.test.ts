import { CreatePlantRequest } from '@plant-store/domain';
import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { canonicalRequest, SavedRequest } from './canonical-request.js';

/** What a client may send: an object the create codec accepts. */
const text = (maxLength: number) =>
  fc
    .string({ minLength: 1, maxLength, unit: 'grapheme' })
    .filter((s) => E.isRight(CreatePlantRequest.decode({ name: s })) && s.length <= maxLength);
const body = fc.record(
  { id: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), name: text(40), tag: text(20) },
  { requiredKeys: ['name'] },
);

/** `value` written as JSON another way: members in `order`, whitespace around tokens, some characters \u-escaped. */
const spell = (
  value: Record<string, unknown>,
  order: readonly number[],
  space: string,
  escapeEvery: number,
): string => {
  const keys = Object.keys(value);
  const ordered = order.map((i) => keys[i % keys.length] as string).filter((k, i, all) => all.indexOf(k) === i);
  for (const k of keys) if (!ordered.includes(k)) ordered.push(k);
  const escape = (s: string): string =>
    [...s]
      .map((ch, i) =>
        escapeEvery > 0 && i % escapeEvery === 0 && ch.length === 1
          ? `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`
          : JSON.stringify(ch).slice(1, -1),
      )
      .join('');
  const member = (k: string): string => {
    const v = value[k];
    const written =
      typeof v === 'string'
        ? `"${escape(v)}"`
        : typeof v === 'number' && v < 1e15 && escapeEvery % 2 === 1
          ? `${v}.0e0`
          : JSON.stringify(v);
    return `${space}"${escape(k)}"${space}:${space}${written}${space}`;
  };
  return `${space}{${ordered.map(member).join(',')}}${space}`;
};

const decode = (json: string) => {
  const decoded = CreatePlantRequest.decode(JSON.parse(json));
  if (E.isLeft(decoded)) throw new TypeError(`test body ${json} does not decode`);
  return decoded.right;
};

describe('canonicalRequest', () => {
  it('is the same for every spelling of one JSON value: member order, whitespace, escapes, number form', () => {
    fc.assert(
      fc.property(
        body,
        fc.array(fc.nat(), { maxLength: 3 }),
        fc.constantFrom('', ' ', '\n\t', '  \r\n'),
        fc.nat(4),
        (value, order, space, escapeEvery) => {
          expect(canonicalRequest(decode(spell(value, order, space, escapeEvery)))).toBe(
            canonicalRequest(decode(JSON.stringify(value))),
          );
        },
      ),
      { numRuns: 500 },
    );
  });

  it('differs when any value differs, a member is added or one is removed', () => {
    fc.assert(
      fc.property(body, body, (a, b) => {
        fc.pre(JSON.stringify(Object.entries(a).sort()) !== JSON.stringify(Object.entries(b).sort()));
        expect(canonicalRequest(decode(JSON.stringify(a)))).not.toBe(canonicalRequest(decode(JSON.stringify(b))));
      }),
      { numRuns: 500 },
    );
  });

  it('tells apart values that a naive join would confuse', () => {
    const of = (value: object) => canonicalRequest(decode(JSON.stringify(value)));
    expect(of({ name: 'a', tag: 'b' })).not.toBe(of({ name: 'a","b' }));
    expect(of({ name: 'x', tag: 'y' })).not.toBe(of({ name: 'x' }));
    expect(of({ id: 1, name: 'x' })).not.toBe(of({ id: 10, name: 'x' }));
  });
});

describe('canonicalRequest, from the codec', () => {
  it('is the request as CreatePlantRequest encodes it, in the earlier form the previous release reads', () => {
    fc.assert(
      fc.property(body, (value) => {
        const request = decode(JSON.stringify(value));
        const encoded: Record<string, unknown> = CreatePlantRequest.encode(request);
        // Byte for byte what the previous release writes and compares: [id, name, tag], null for absent.
        expect(canonicalRequest(request)).toBe(
          JSON.stringify([encoded['id'] ?? null, encoded['name'], encoded['tag'] ?? null]),
        );
      }),
      { numRuns: 200 },
    );
  });

  it('changes when any member the codec writes changes or goes, whichever member it is', () => {
    const other = (v: unknown): unknown =>
      typeof v === 'string' ? `${v}x` : typeof v === 'number' ? (v > 1 ? v - 1 : v + 1) : v;
    fc.assert(
      fc.property(body, (value) => {
        const request = decode(JSON.stringify(value));
        const encoded = CreatePlantRequest.encode(request);
        for (const [key, v] of Object.entries(encoded)) {
          const changed = CreatePlantRequest.decode({ ...encoded, [key]: other(v) });
          expect(E.isRight(changed) && canonicalRequest(changed.right)).not.toBe(canonicalRequest(request));
          const fewer = CreatePlantRequest.decode(
            Object.fromEntries(Object.entries(encoded).filter(([k]) => k !== key)),
          );
          if (E.isRight(fewer)) expect(canonicalRequest(fewer.right)).not.toBe(canonicalRequest(request));
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('SavedRequest', () => {
  it('reads back the request canonicalRequest wrote', () => {
    fc.assert(
      fc.property(body, (value) => {
        const request = decode(JSON.stringify(value));
        expect(SavedRequest.decode(canonicalRequest(request))).toEqual(E.right(request));
      }),
      { numRuns: 200 },
    );
  });

  it.each([
    ['[3,"Fern","green"]', { id: 3, name: 'Fern', tag: 'green' }],
    ['[null,"Fern",null]', { name: 'Fern' }],
    ['[7,"Ivy",null]', { id: 7, name: 'Ivy' }],
  ])('reads the earlier form %s as the same request, written again the same way', (text, request) => {
    const saved = SavedRequest.decode(text);
    expect(saved).toEqual(E.right(request));
    expect(E.isRight(saved) && canonicalRequest(saved.right)).toBe(canonicalRequest(decode(JSON.stringify(request))));
  });

  it.each(['', 'nope', '[1,"x"]', '{"name":""}', '{"name":"x","colour":"red"}', '[0,"x",null]'])(
    'refuses %j',
    (text) => {
      expect(E.isLeft(SavedRequest.decode(text))).toBe(true);
    },
  );
});
