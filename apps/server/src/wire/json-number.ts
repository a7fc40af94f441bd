import { MAX_PLANT_ID } from '@plant-store/domain';

/**
 * Reading JSON numbers as written. JSON.parse rounds a number to the nearest double, so
 * `5.0000000000000001` arrives as 5 and `9007199254740990.9999999` as 2^53−1: the codec then sees
 * an integer where the client sent a fraction. The helpers below look at the literal in the raw
 * text instead. They expect text that JSON.parse already accepted; on anything else they give up
 * (return undefined) rather than guess. A create's body (http/json-body.ts) and a line of an
 * imported file (data/import.ts) are read alike.
 */

const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;

/** A white-space code unit of JSON (space, tab, LF, CR), or a BOM, which some parsers skip. */
const isSpace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d || c === 0xfeff;

const skipSpace = (text: string, i: number): number => {
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  return i;
};

/** The index just past the string literal whose opening quote is at `start` (escapes skipped); -1 if unterminated. */
const skipString = (text: string, start: number): number => {
  for (let i = start + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5c /* \ */) i++;
    else if (c === 0x22 /* " */) return i + 1;
  }
  return -1;
};

/** The index just past the JSON value starting at `start` (a container is skipped whole); -1 if malformed. */
const skipValue = (text: string, start: number): number => {
  const first = text.charCodeAt(start);
  if (first === 0x22) return skipString(text, start);
  if (first === 0x7b /* { */ || first === 0x5b /* [ */) {
    let depth = 0;
    for (let i = start; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        i = skipString(text, i);
        if (i < 0) return -1;
        i--;
      } else if (c === 0x7b || c === 0x5b) depth++;
      else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
        depth--;
        if (depth === 0) return i + 1;
      }
    }
    return -1;
  }
  // a number or true / false / null: up to the next delimiter
  let i = start;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 0x2c /* , */ || c === 0x7d || c === 0x5d || isSpace(c)) break;
    i++;
  }
  return i > start ? i : -1;
};

/** `"\u0069\u0064"` is the longest spelling of the key `id` (6 code units a character, quotes apart). */
const LONGEST_ID_KEY = 2 + 2 * 6;

/** Whether the string literal text[start, end) (quotes included) decodes to `id`. */
const isIdKey = (text: string, start: number, end: number): boolean => {
  const length = end - start;
  if (length === 4) return text.charCodeAt(start + 1) === 0x69 && text.charCodeAt(start + 2) === 0x64;
  if (length > LONGEST_ID_KEY) return false;
  let escaped = false;
  for (let i = start + 1; i < end - 1 && !escaped; i++) escaped = text.charCodeAt(i) === 0x5c;
  if (!escaped) return false;
  try {
    return JSON.parse(text.slice(start, end)) === 'id';
  } catch {
    return false;
  }
};

/**
 * The literal of the top-level object's member `id` in JSON text, exactly as written (the last one
 * when the key repeats, as JSON.parse keeps the last); undefined when the text is not an object,
 * has no such member, or its value is not a number. Keys are compared decoded, so `"\u0069d"` is
 * `id` too. One pass, O(n), no allocation but the returned slice.
 */
export const topLevelIdLiteral = (text: string): string | undefined => {
  let i = skipSpace(text, 0);
  if (text.charCodeAt(i) !== 0x7b) return undefined;
  let literal: [number, number] | undefined;
  i = skipSpace(text, i + 1);
  if (text.charCodeAt(i) === 0x7d) return undefined;
  for (;;) {
    if (text.charCodeAt(i) !== 0x22) return undefined;
    const keyEnd = skipString(text, i);
    if (keyEnd < 0) return undefined;
    const isId = isIdKey(text, i, keyEnd);
    i = skipSpace(text, keyEnd);
    if (text.charCodeAt(i) !== 0x3a /* : */) return undefined;
    const valueStart = skipSpace(text, i + 1);
    const valueEnd = skipValue(text, valueStart);
    if (valueEnd < 0) return undefined;
    if (isId) {
      const c = text.charCodeAt(valueStart);
      literal = c === 0x2d /* - */ || isDigit(c) ? [valueStart, valueEnd] : undefined;
    }
    i = skipSpace(text, valueEnd);
    const c = text.charCodeAt(i);
    if (c === 0x7d) return literal === undefined ? undefined : text.slice(literal[0], literal[1]);
    if (c !== 0x2c) return undefined;
    i = skipSpace(text, i + 1);
  }
};

/** Exponents this large in magnitude outweigh any count of digits a body can hold. */
const EXPONENT_CAP = 1e15;

/**
 * Whether a JSON number literal denotes an integer mathematically (not after rounding to a double):
 * `1.0`, `7e0`, `1E2`, `1.5e1`, `-0` are; `5.0000000000000001`, `1e-400`, `1.5` are not.
 * Undefined when `literal` is not JSON number syntax.
 */
export const isIntegerLiteral = (literal: string): boolean | undefined => {
  let i = 0;
  const n = literal.length;
  if (literal.charCodeAt(i) === 0x2d) i++;
  const intStart = i;
  while (i < n && isDigit(literal.charCodeAt(i))) i++;
  const intEnd = i;
  if (intEnd === intStart || (literal.charCodeAt(intStart) === 0x30 && intEnd - intStart > 1)) return undefined;
  // the fraction's significant length: up to its last non-zero digit
  let fractionDigits = 0;
  if (literal.charCodeAt(i) === 0x2e /* . */) {
    const fracStart = ++i;
    while (i < n && isDigit(literal.charCodeAt(i))) {
      if (literal.charCodeAt(i) !== 0x30) fractionDigits = i - fracStart + 1;
      i++;
    }
    if (i === fracStart) return undefined;
  }
  let exponent = 0;
  if (literal.charCodeAt(i) === 0x65 || literal.charCodeAt(i) === 0x45 /* e E */) {
    i++;
    let sign = 1;
    if (literal.charCodeAt(i) === 0x2d) {
      sign = -1;
      i++;
    } else if (literal.charCodeAt(i) === 0x2b) i++;
    const expStart = i;
    while (i < n && isDigit(literal.charCodeAt(i))) {
      if (exponent < EXPONENT_CAP) exponent = exponent * 10 + (literal.charCodeAt(i) - 0x30);
      i++;
    }
    if (i === expStart) return undefined;
    exponent *= sign;
  }
  if (i !== n) return undefined;
  if (fractionDigits > 0) return exponent >= fractionDigits;
  // no fraction worth the name: the integer part × 10^exponent, integral unless zeros run out
  let trailingZeros = 0;
  for (let j = intEnd - 1; j >= intStart && literal.charCodeAt(j) === 0x30; j--) trailingZeros++;
  if (trailingZeros === intEnd - intStart) return true; // zero
  return exponent + trailingZeros >= 0;
};

/** Literals longer than this are cut in messages. */
const SHOWN_LITERAL = 40;

/**
 * The problem with the top-level `id` of `body` (parsed from `raw`) that JSON.parse hid: a literal
 * that is not an integer (`5.0000000000000001`, `1e-400`) but was rounded to one. Worded like the
 * PlantId codec's message, with the literal as sent. Only a body with an integral numeric `id` is
 * scanned (any other value the codec refuses by itself), so the common body costs one property read.
 */
export const idLiteralProblem = (raw: string, body: unknown): string | undefined => {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const id = (body as { readonly id?: unknown }).id;
  if (typeof id !== 'number' || !Number.isInteger(id) || !Object.hasOwn(body, 'id')) return undefined;
  const literal = topLevelIdLiteral(raw);
  if (literal === undefined || isIntegerLiteral(literal) !== false) return undefined;
  const shown = literal.length > SHOWN_LITERAL ? `${literal.slice(0, SHOWN_LITERAL)}…` : literal;
  return `id: expected an integer from 1 to ${MAX_PLANT_ID}, got ${shown}`;
};

/**
 * idLiteralProblem for each element of a top-level JSON array (POST /plants/batch): the problems of
 * the elements whose integral numeric `id` was written as a fraction, by element (counted from 0)
 * and worded `[3].id: …`. Only when some element has such an id is the text scanned, once.
 */
export const elementIdLiteralProblems = (
  raw: string,
  body: unknown,
): ReadonlyArray<{ readonly element: number; readonly problem: string }> => {
  if (!Array.isArray(body)) return [];
  const hasIntegralId = (u: unknown): boolean =>
    typeof u === 'object' &&
    u !== null &&
    !Array.isArray(u) &&
    Object.hasOwn(u, 'id') &&
    Number.isInteger((u as { readonly id?: unknown }).id);
  if (!body.some(hasIntegralId)) return [];
  const problems: Array<{ readonly element: number; readonly problem: string }> = [];
  let i = skipSpace(raw, 0);
  if (raw.charCodeAt(i) !== 0x5b /* [ */) return [];
  i = skipSpace(raw, i + 1);
  for (let element = 0; element < body.length; element++) {
    const end = skipValue(raw, i);
    if (end < 0) return problems;
    if (hasIntegralId(body[element])) {
      const problem = idLiteralProblem(raw.slice(i, end), body[element]);
      if (problem !== undefined) problems.push({ element, problem: `[${element}].${problem}` });
    }
    i = skipSpace(raw, end);
    if (raw.charCodeAt(i) !== 0x2c /* , */) return problems;
    i = skipSpace(raw, i + 1);
  }
  return problems;
};
