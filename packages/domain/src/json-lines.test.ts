import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonLines } from './json-lines.js';

const chunked = async function* (text: string, cuts: readonly number[]): AsyncIterable<string> {
  let at = 0;
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    yield text.slice(at, cut);
    at = cut;
  }
  yield text.slice(at);
};
const all = async (lines: AsyncIterable<string>): Promise<string[]> => {
  const out: string[] = [];
  for await (const line of lines) out.push(line);
  return out;
};

describe('jsonLines', () => {
  it('splits at LF (CRLF too) only: U+2028, U+2029 and U+0085 stay inside a line', async () => {
    const names = ['a\u2028b', 'c\u2029d', 'e\u0085f'];
    const text = names.map((name, i) => JSON.stringify({ id: i + 1, name })).join('\r\n');
    expect((await all(jsonLines(chunked(text, [3, 20])))).map((line) => JSON.parse(line))).toEqual(
      names.map((name, i) => ({ id: i + 1, name })),
    );
  });

  it('gives back the lines that were joined, however the text is cut into chunks', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.string({ unit: 'binary' }).map((s) => s.replace(/[\r\n]/g, '')),
          { minLength: 1, maxLength: 8 },
        ),
        fc.array(fc.nat(), { maxLength: 6 }),
        async (lines, cuts) => {
          const text = lines.join('\n') + '\n';
          const got = await all(
            jsonLines(
              chunked(
                text,
                cuts.map((c) => c % (text.length + 1)),
              ),
            ),
          );
          expect(got).toEqual(lines);
        },
      ),
    );
  });

  it('keeps a last line without its LF, and gives no line for an empty text', async () => {
    expect(await all(jsonLines(chunked('{"a":1}\n{"b":2}', [])))).toEqual(['{"a":1}', '{"b":2}']);
    expect(await all(jsonLines(chunked('', [])))).toEqual([]);
  });
});
