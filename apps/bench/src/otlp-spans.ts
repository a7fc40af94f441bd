import { gunzipSync } from 'node:zlib';
import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';

/**
 * Counting the spans of an OTLP/HTTP trace export (`ExportTraceServiceRequest`), in either of its
 * encodings, without a protobuf library: the count is what tells a reader whether the server's
 * batch processor kept up or dropped spans, which requests and bytes alone do not.
 */

/** Protobuf wire types (the deprecated groups, 3 and 4, are not used by OTLP). */
const VARINT = 0;
const I64 = 1;
const LEN = 2;
const I32 = 5;

interface Field {
  readonly number: number;
  readonly wireType: number;
  /** For a LEN field: its bytes. */
  readonly bytes: Uint8Array | undefined;
}

/** The top-level fields of one protobuf message; undefined when the bytes are not a message. */
const protobufFields = (buf: Uint8Array): readonly Field[] | undefined => {
  const fields: Field[] = [];
  let at = 0;
  // Bits past the 49th are dropped to keep the arithmetic exact in a double: only values (which
  // are skipped) get that long, never a tag or a length.
  const varint = (): number | undefined => {
    let value = 0;
    for (let shift = 0; shift < 70; shift += 7) {
      const byte = buf[at++];
      if (byte === undefined) return undefined;
      if (shift < 49) value += (byte & 0x7f) * 2 ** shift;
      if ((byte & 0x80) === 0) return value;
    }
    return undefined;
  };
  while (at < buf.length) {
    const tag = varint();
    if (tag === undefined) return undefined;
    const number = Math.floor(tag / 8);
    const wireType = tag % 8;
    if (number === 0) return undefined;
    let bytes: Uint8Array | undefined;
    if (wireType === VARINT) {
      if (varint() === undefined) return undefined;
    } else if (wireType === I64 || wireType === I32) {
      at += wireType === I64 ? 8 : 4;
      if (at > buf.length) return undefined;
    } else if (wireType === LEN) {
      const length = varint();
      if (length === undefined || at + length > buf.length) return undefined;
      bytes = buf.subarray(at, at + length);
      at += length;
    } else {
      return undefined;
    }
    fields.push({ number, wireType, bytes });
  }
  return fields;
};

/** The LEN fields numbered `number` of a message; undefined when it does not parse. */
const embedded = (buf: Uint8Array, number: number): readonly Uint8Array[] | undefined => {
  const fields = protobufFields(buf);
  return fields?.flatMap((f) => (f.number === number && f.bytes !== undefined ? [f.bytes] : []));
};

/**
 * Spans in a protobuf `ExportTraceServiceRequest`: `resource_spans` (1) → `scope_spans` (2) →
 * `spans` (2). Undefined when the bytes do not parse as that.
 */
export const countProtobufSpans = (buf: Uint8Array): number | undefined => {
  const resourceSpans = embedded(buf, 1);
  if (resourceSpans === undefined) return undefined;
  let spans = 0;
  for (const resource of resourceSpans) {
    const scopeSpans = embedded(resource, 2);
    if (scopeSpans === undefined) return undefined;
    for (const scope of scopeSpans) {
      const inScope = embedded(scope, 2);
      if (inScope === undefined) return undefined;
      spans += inScope.length;
    }
  }
  return spans;
};

/** OTLP/JSON omits empty lists, so every level is optional. */
const JsonExport = t.partial({
  resourceSpans: t.array(t.partial({ scopeSpans: t.array(t.partial({ spans: t.array(t.unknown) })) })),
});

/** Spans in an OTLP/JSON `ExportTraceServiceRequest`; undefined when it is not one. */
export const countJsonSpans = (text: string): number | undefined => {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  const decoded = JsonExport.decode(parsed);
  return E.isLeft(decoded)
    ? undefined
    : (decoded.right.resourceSpans ?? []).reduce(
        (sum, r) => sum + (r.scopeSpans ?? []).reduce((inner, s) => inner + (s.spans ?? []).length, 0),
        0,
      );
};

/**
 * Spans in one export body as sent (`Content-Type` `application/x-protobuf` or `application/json`,
 * `Content-Encoding` identity or gzip); undefined for another type or a body that does not parse.
 */
export const countSpans = (
  body: Uint8Array,
  contentType: string | undefined,
  contentEncoding: string | undefined,
): number | undefined => {
  const mediaType = (contentType ?? '').split(';')[0]?.trim().toLowerCase();
  const encoding = (contentEncoding ?? 'identity').trim().toLowerCase();
  let plain: Uint8Array;
  if (encoding === 'identity' || encoding === '') plain = body;
  else if (encoding === 'gzip') {
    try {
      plain = gunzipSync(body);
    } catch {
      return undefined;
    }
  } else return undefined;
  if (mediaType === 'application/x-protobuf' || mediaType === 'application/protobuf') return countProtobufSpans(plain);
  if (mediaType === 'application/json') return countJsonSpans(Buffer.from(plain).toString('utf8'));
  return undefined;
};
