import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { elementIdLiteralProblems, idLiteralProblem, isIntegerLiteral, topLevelIdLiteral } from './json-number.js';

describe('isIntegerLiteral', () => {
  it.each([
    '0',
    '-0',
    '1',
    '-1',
    '1.0',
    '7e0',
    '1E2',
    '1.5e1',
    '0.1e1',
    '1e+3',
    '10e-1',
    '1200e-2',
    '0.0',
    '0e-5',
    '0.000e-400',
    '9007199254740991',
    '1e400',
    '123.4560000e3',
  ])('%s is an integer', (literal) => expect(isIntegerLiteral(literal)).toBe(true));

  it.each([
    '5.0000000000000001',
    '9007199254740990.9999999',
    '1e-400',
    '1.5',
    '-0.5',
    '10e-2',
    '1.25e1',
    '123456789.00000000001',
    '1e-99999999999999999999',
  ])('%s is not', (literal) => expect(isIntegerLiteral(literal)).toBe(false));

  it.each(['', '-', '01', '1.', '.5', '1e', '1e+', '+1', '1x', 'NaN', '0x10', '1 '])(
    '%j is no JSON number',
    (literal) => expect(isIntegerLiteral(literal)).toBeUndefined(),
  );

  /** A literal of the integer `n` written with a fraction and a compensating exponent. */
  const integerSpelling = fc
    .tuple(fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }), fc.nat({ max: 20 }), fc.nat({ max: 5 }), fc.boolean())
    .map(([n, shift, zeros, upper]) => {
      // n with its point moved left by `shift` digits, `zeros` trailing zeros in the fraction, then e`shift`
      const sign = n < 0n ? '-' : '';
      const digits = (n < 0n ? -n : n).toString().padStart(shift + 1, '0');
      const intPart = digits.slice(0, digits.length - shift).replace(/^0+(?=\d)/, '');
      const frac = digits.slice(digits.length - shift) + '0'.repeat(zeros);
      const literal = `${sign}${intPart}${frac === '' ? '' : `.${frac}`}${shift === 0 && zeros === 0 ? '' : `${upper ? 'E' : 'e'}${shift}`}`;
      return { literal, value: n };
    });

  it('agrees with the parsed value for integer-valued literals (property)', () => {
    fc.assert(
      fc.property(integerSpelling, ({ literal, value }) => {
        expect(isIntegerLiteral(literal)).toBe(true);
        expect(JSON.parse(literal)).toBe(Number(value));
        expect(Number.isInteger(JSON.parse(literal))).toBe(true);
      }),
    );
  });

  it('rejects generated non-integer decimals, even those JSON.parse rounds to integers (property)', () => {
    const nonInteger = fc
      .tuple(
        fc.bigInt({ min: 0n, max: 10n ** 20n }),
        fc.nat({ max: 30 }),
        fc.integer({ min: 1, max: 9 }),
        fc.nat({ max: 3 }),
        fc.boolean(),
      )
      .map(([whole, zerosBefore, lastDigit, exponentLess, negative]) => {
        // whole.000…0d × 10^e with e < the fraction's length: never an integer
        const fraction = `${'0'.repeat(zerosBefore)}${lastDigit}`;
        const exponent = fraction.length - 1 - exponentLess;
        return `${negative ? '-' : ''}${whole}.${fraction}${exponent === 0 ? '' : `e${exponent}`}`;
      });
    fc.assert(
      fc.property(nonInteger, (literal) => {
        expect(isIntegerLiteral(literal)).toBe(false);
      }),
    );
  });
});

describe('topLevelIdLiteral', () => {
  it.each([
    ['{"id": 5.0000000000000001, "name": "p"}', '5.0000000000000001'],
    ['{"name": "p", "id":1e-400}', '1e-400'],
    [' \n{ "id" : -0 } ', '-0'],
    ['{"\\u0069d": 7.5, "name": "escaped key"}', '7.5'],
    ['{"\\u0069\\u0064": 8}', '8'],
    ['{"i\\u0064": 9}', '9'],
    ['{"id": 1.5, "id": 2}', '2'],
    ['{"id": 1, "id": "2"}', undefined],
    ['{"nested": {"id": 1.5}, "list": [{"id": 2.5}, "}", "\\"id\\": 3"], "id": 4}', '4'],
    ['{"nested": {"id": 1.5}}', undefined],
    ['{"name": "{\\"id\\": 1.5}"}', undefined],
    ['{"idx": 1.5, "i": 2, "ID": 3}', undefined],
    ['{"id": true}', undefined],
    ['{"id": null}', undefined],
    ['{}', undefined],
    ['[{"id": 1.5}]', undefined],
    ['"id"', undefined],
  ])('%s → %s', (text, literal) => {
    expect(topLevelIdLiteral(text)).toBe(literal);
  });

  it('finds the literal of any JSON object with an id member, whatever the other members (property)', () => {
    const others = fc.dictionary(
      fc.string().filter((k) => k !== 'id'),
      fc.jsonValue({ maxDepth: 3 }),
      { maxKeys: 5 },
    );
    const idText = fc.oneof(
      fc.integer().map(String),
      fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => JSON.stringify(d)),
    );
    fc.assert(
      fc.property(others, others, idText, fc.boolean(), (before, after, id, escapeKey) => {
        const members = [
          ...Object.entries(before).map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v)}`),
          `${escapeKey ? '"\\u0069d"' : '"id"'}:${id}`,
          ...Object.entries(after).map(([k, v]) => `${JSON.stringify(k)} :\n${JSON.stringify(v, null, 1)}`),
        ];
        const text = `{${members.join(' , ')}}`;
        JSON.parse(text); // valid JSON, as the scanner expects
        expect(topLevelIdLiteral(text)).toBe(id);
      }),
    );
  });

  it('stays linear on deep nesting and long strings', () => {
    const deep = `{"a": ${'['.repeat(50_000)}${']'.repeat(50_000)}, "b": "${'\\"'.repeat(50_000)}", "id": 3.0}`;
    expect(topLevelIdLiteral(deep)).toBe('3.0');
  });
});

describe('idLiteralProblem', () => {
  it('names the field and the literal as sent, like the codec does', () => {
    const text = '{"id": 5.0000000000000001, "name": "p"}';
    expect(idLiteralProblem(text, JSON.parse(text))).toBe(
      'id: expected an integer from 1 to 9007199254740991, got 5.0000000000000001',
    );
    const big = '{"id": 9007199254740990.9999999}';
    expect(idLiteralProblem(big, JSON.parse(big))).toBe(
      'id: expected an integer from 1 to 9007199254740991, got 9007199254740990.9999999',
    );
  });

  it('cuts a long literal', () => {
    const text = `{"id": 1${'0'.repeat(60)}.5}`;
    expect(idLiteralProblem(text, JSON.parse(text))).toBe(
      `id: expected an integer from 1 to 9007199254740991, got 1${'0'.repeat(39)}…`,
    );
  });

  it.each([
    '{"id": 1.0}',
    '{"id": 7e0}',
    '{"id": 1E2}',
    '{"id": 1.5e1}',
    '{"id": 1.5}',
    '{"id": "5.0000000000000001"}',
    '{"name": "x"}',
    '[5.0000000000000001]',
  ])('leaves %s to the codec', (text) => expect(idLiteralProblem(text, JSON.parse(text))).toBeUndefined());
});

describe('elementIdLiteralProblems', () => {
  const of = (raw: string) => elementIdLiteralProblems(raw, JSON.parse(raw));

  it('names each element whose integral id was written as a fraction, by its place', () => {
    expect(of('[{"name":"a"}, {"id":5.0000000000000001,"name":"b"},\n {"id":7}, {"name":"c","id":1e-400}]')).toEqual([
      { element: 1, problem: '[1].id: expected an integer from 1 to 9007199254740991, got 5.0000000000000001' },
      { element: 3, problem: '[3].id: expected an integer from 1 to 9007199254740991, got 1e-400' },
    ]);
  });

  it('finds nothing in arrays whose ids are written as integers, or have none, or in other bodies', () => {
    expect(of('[{"id":1.0,"name":"a"},{"id":2,"name":"[{\\"id\\":1.5}]"}]')).toEqual([]);
    expect(of('[{"name":"a"},3,"x",[{"id":1.5}],null]')).toEqual([]);
    expect(of('{"id":5.0000000000000001}')).toEqual([]);
    expect(elementIdLiteralProblems('[]', [])).toEqual([]);
  });

  it('agrees with idLiteralProblem on every element', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(fc.constant('1.0'), fc.constant('5.0000000000000001'), fc.constant('7'), fc.constant('1e-400')),
          {
            maxLength: 6,
          },
        ),
        (ids) => {
          const raw = `[${ids.map((id) => `{ "name" : "x", "id" :${id} }`).join(' , ')}]`;
          const expected = ids.flatMap((id, element) => {
            const problem = idLiteralProblem(`{"id":${id}}`, JSON.parse(`{"id":${id}}`));
            return problem === undefined ? [] : [{ element, problem: `[${element}].${problem}` }];
          });
          expect(of(raw)).toEqual(expected);
        },
      ),
      { numRuns: 200 },
    );
  });
});
