import * as t from 'io-ts';
import { describeValue } from './describe-value.js';

const hex = (code: number): string => `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;

/**
 * Why `s` breaks the contract's text rules for a field of 1…`max` code points, or undefined.
 * Rules: well-formed Unicode (no lone surrogates), no control characters U+0000–U+001F and
 * U+007F, at least one non-whitespace character, length counted in code points.
 */
export const textProblem = (s: string, max: number): string | undefined => {
  let points = 0;
  for (let i = 0; i < s.length; i++) {
    const code = s.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = s.charCodeAt(i + 1);
      if (!(next >= 0xdc00 && next <= 0xdfff)) {
        return `expected well-formed Unicode, got a lone surrogate ${hex(code)} at character ${points + 1}`;
      }
      i++;
    } else if (code >= 0xdc00 && code <= 0xdfff) {
      return `expected well-formed Unicode, got a lone surrogate ${hex(code)} at character ${points + 1}`;
    } else if (code <= 0x1f || code === 0x7f) {
      return `expected no control characters, got ${hex(code)} at character ${points + 1}`;
    }
    points++;
  }
  if (points < 1 || points > max) return `expected 1–${max} characters, got ${points}`;
  if (!/\S/u.test(s)) return 'expected at least one non-whitespace character, got only whitespace';
  return undefined;
};

/** A string codec following the contract's text rules, branded so unchecked strings cannot pass. */
export const textCodec = <B>(name: string, max: number): t.Type<t.Branded<string, B>, string, unknown> => {
  const is = (u: unknown): u is t.Branded<string, B> => typeof u === 'string' && textProblem(u, max) === undefined;
  return new t.Type<t.Branded<string, B>, string, unknown>(
    name,
    is,
    (u, c) => {
      if (typeof u !== 'string') return t.failure(u, c, `expected a string, got ${describeValue(u)}`);
      const problem = textProblem(u, max);
      return problem === undefined ? t.success(u as t.Branded<string, B>) : t.failure(u, c, problem);
    },
    t.identity,
  );
};
