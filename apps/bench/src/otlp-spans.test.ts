import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { countJsonSpans, countProtobufSpans, countSpans } from './otlp-spans.js';

/** A tiny protobuf encoder: enough to build the export messages by hand. */
const varint = (n: number): number[] => {
  const out: number[] = [];
  let v = n;
  while (v >= 0x80) {
    out.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
  return out;
};
const len = (field: number, bytes: readonly number[]): number[] => [
  ...varint(field * 8 + 2),
  ...varint(bytes.length),
  ...bytes,
];
const int = (field: number, n: number): number[] => [...varint(field * 8), ...varint(n)];
const fixed64 = (field: number): number[] => [...varint(field * 8 + 1), 1, 2, 3, 4, 5, 6, 7, 8];
const fixed32 = (field: number): number[] => [...varint(field * 8 + 5), 1, 2, 3, 4];
const text = (field: number, s: string): number[] => len(field, [...Buffer.from(s)]);

/** A span with the fields a real one has in every wire type (ids, name, kind, times, an attribute). */
const span = (name: string): number[] => [
  ...len(
    1,
    Array.from({ length: 16 }, (_, i) => i),
  ),
  ...len(
    2,
    Array.from({ length: 8 }, (_, i) => i),
  ),
  ...text(5, name),
  ...int(6, 2),
  ...fixed64(7),
  ...fixed64(8),
  ...len(9, [...text(1, 'http.method'), ...len(2, text(1, 'POST'))]),
  ...fixed32(16),
];
const scopeSpans = (...spans: number[][]): number[] => [
  ...len(1, text(1, 'plant-store')),
  ...spans.flatMap((s) => len(2, s)),
  ...text(3, 'https://opentelemetry.io/schemas/1.26.0'),
];
const resourceSpans = (...scopes: number[][]): number[] => [
  ...len(1, len(1, [...text(1, 'service.name'), ...len(2, text(1, 'plant-store'))])),
  ...scopes.flatMap((s) => len(2, s)),
  ...text(3, ''),
];
const request = (...resources: number[][]): Uint8Array => Uint8Array.from(resources.flatMap((r) => len(1, r)));

describe('countProtobufSpans', () => {
  it('counts the spans of every scope of every resource, skipping the other fields', () => {
    const body = request(
      resourceSpans(scopeSpans(span('a'), span('b')), scopeSpans(span('c'))),
      resourceSpans(scopeSpans(...Array.from({ length: 200 }, (_, i) => span(`span ${i}`)))),
    );
    expect(countProtobufSpans(body)).toBe(203);
  });

  it('counts none in an empty request, or one whose resources hold no spans', () => {
    expect(countProtobufSpans(new Uint8Array())).toBe(0);
    expect(countProtobufSpans(request(resourceSpans(), resourceSpans(scopeSpans())))).toBe(0);
  });

  it('returns undefined for bytes that are not an export request', () => {
    const body = request(resourceSpans(scopeSpans(span('a'))));
    expect(countProtobufSpans(body.subarray(0, body.length - 3))).toBeUndefined();
    expect(countProtobufSpans(Uint8Array.from([0x0b, 0x00]))).toBeUndefined(); // wire type 3 (a group)
    expect(countProtobufSpans(Uint8Array.from([0x00, 0x01]))).toBeUndefined(); // field 0
    expect(countProtobufSpans(Uint8Array.from([0x08, 0xff]))).toBeUndefined(); // varint cut short
    expect(countProtobufSpans(Buffer.from('{"resourceSpans":[]}'))).toBeUndefined();
  });
});

describe('countJsonSpans', () => {
  it('counts the spans of every scope of every resource, lists left out counting as empty', () => {
    const body = {
      resourceSpans: [
        { resource: { attributes: [] }, scopeSpans: [{ scope: { name: 'x' }, spans: [{}, {}] }, { scope: {} }] },
        { scopeSpans: [{ spans: [{ name: 'c' }] }] },
        {},
      ],
    };
    expect(countJsonSpans(JSON.stringify(body))).toBe(3);
    expect(countJsonSpans('{}')).toBe(0);
  });

  it('returns undefined for text that is not an export request', () => {
    expect(countJsonSpans('not json')).toBeUndefined();
    expect(countJsonSpans('{"resourceSpans":{}}')).toBeUndefined();
    expect(countJsonSpans('[]')).toBeUndefined();
  });
});

describe('countSpans', () => {
  const proto = request(resourceSpans(scopeSpans(span('a'), span('b'))));
  const json = Buffer.from(JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [{}, {}, {}] }] }] }));

  it('reads each encoding by its content type, parameters and case aside', () => {
    expect(countSpans(proto, 'application/x-protobuf', undefined)).toBe(2);
    expect(countSpans(proto, 'application/protobuf', 'identity')).toBe(2);
    expect(countSpans(json, 'Application/JSON; charset=utf-8', undefined)).toBe(3);
  });

  it('reads gzipped bodies', () => {
    expect(countSpans(gzipSync(proto), 'application/x-protobuf', 'gzip')).toBe(2);
    expect(countSpans(gzipSync(json), 'application/json', 'gzip')).toBe(3);
  });

  it('returns undefined for another content type or encoding, or a body that is not what it says', () => {
    expect(countSpans(proto, 'application/octet-stream', undefined)).toBeUndefined();
    expect(countSpans(proto, undefined, undefined)).toBeUndefined();
    expect(countSpans(proto, 'application/x-protobuf', 'br')).toBeUndefined();
    expect(countSpans(proto, 'application/x-protobuf', 'gzip')).toBeUndefined();
    expect(countSpans(json, 'application/x-protobuf', undefined)).toBeUndefined();
  });
});
