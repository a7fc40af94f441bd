import { Plant } from '@plant-store/domain';
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { decodeBody, decodeErrorBody, parseJson } from './decode-body.js';

const bytes = (s: string) => new TextEncoder().encode(s);

describe('parseJson', () => {
  it('parses UTF-8 JSON, with or without a BOM', () => {
    expect(parseJson(bytes('{"a":"ü"}'))).toEqual(E.right({ a: 'ü' }));
    expect(parseJson(Uint8Array.from([0xef, 0xbb, 0xbf, ...bytes('[]')]))).toEqual(E.right([]));
  });

  it('names what is wrong', () => {
    expect(parseJson(Uint8Array.from([0x22, 0xc3, 0x22]))).toEqual(E.left('the response body is not valid UTF-8'));
    expect(parseJson(bytes('  '))).toEqual(E.left('the response body is empty, expected JSON'));
    expect(E.isLeft(parseJson(bytes('{')))).toBe(true);
  });
});

describe('decodeBody', () => {
  it('decodes with the codec', () => {
    expect(decodeBody(Plant)(bytes('{"id":1,"name":"Fern"}'))).toEqual(E.right({ id: 1, name: 'Fern' }));
  });

  it('turns decode errors into readable lines rooted at body', () => {
    expect(decodeBody(Plant)(bytes('{"id":0}'))).toEqual(
      E.left(['body.id: expected an integer from 1 to 9007199254740991, got 0', 'body.name: required']),
    );
  });
});

describe('decodeErrorBody', () => {
  it('reads {error, message} and ignores anything else', () => {
    expect(decodeErrorBody(bytes('{"error":404,"message":"gone","extra":1}'))).toEqual({ error: 404, message: 'gone' });
    expect(decodeErrorBody(bytes('{"error":"404","message":"gone"}'))).toBeUndefined();
    expect(decodeErrorBody(bytes('<html>'))).toBeUndefined();
  });
});
