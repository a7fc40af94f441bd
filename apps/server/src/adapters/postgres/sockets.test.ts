import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Framer } from './sockets.js';

// The silence watch reads only message boundaries: whatever the chunks, the same messages.
const message = fc.record({ type: fc.integer({ min: 65, max: 90 }), body: fc.uint8Array({ maxLength: 40 }) });

const wire = (first: Uint8Array | undefined, messages: readonly { type: number; body: Uint8Array }[]): Buffer => {
  const parts: Buffer[] = [];
  if (first !== undefined) {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(first.length + 4);
    parts.push(length, Buffer.from(first));
  }
  for (const { type, body } of messages) {
    const header = Buffer.alloc(5);
    header[0] = type;
    header.writeUInt32BE(body.length + 4, 1);
    parts.push(header, Buffer.from(body));
  }
  return Buffer.concat(parts);
};

describe('Framer', () => {
  it('finds each message once, however the stream is cut', () => {
    fc.assert(
      fc.property(
        fc.option(fc.uint8Array({ maxLength: 20 }), { nil: undefined }),
        fc.array(message, { maxLength: 30 }),
        fc.array(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 50 }),
        (first, messages, cuts) => {
          const bytes = wire(first, messages);
          const framer = new Framer(first !== undefined);
          const seen: [number, number][] = [];
          let at = 0;
          for (let k = 0; at < bytes.length; k++) {
            const size = cuts[k % cuts.length] as number;
            framer.feed(bytes.subarray(at, at + size), (type, length) => seen.push([type, length]));
            at += size;
          }
          const expected: [number, number][] = [
            ...(first === undefined ? [] : [[0, first.length + 4] as [number, number]]),
            ...messages.map(({ type, body }): [number, number] => [type, body.length + 4]),
          ];
          expect(seen).toEqual(expected);
        },
      ),
      { numRuns: 500 },
    );
  });
});
