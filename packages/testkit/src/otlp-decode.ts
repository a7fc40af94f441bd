/**
 * Decodes an OTLP/HTTP trace export body, `http/protobuf` or `http/json`, into `ReceivedSpan`s.
 *
 * Both encodings first become the same camelCase object tree (protobufjs's `toObject` names
 * fields exactly as OTLP/JSON does), so one normaliser reads both; only ids and bytes differ
 * (raw bytes in protobuf, hex and base64 strings in JSON). The JSON side is held to the OTLP/JSON
 * rules the official exporters follow: lowerCamelCase keys, enums as integers, int64 as a decimal
 * string or a number, ids as hex.
 */
import {
  SPAN_KINDS,
  STATUS_CODES,
  type Attributes,
  type ReceivedSpan,
  type SpanEvent,
  type SpanLink,
} from './otlp-model.js';
import { otlpTypes } from './otlp-proto.js';

export type OtlpEncoding = 'protobuf' | 'json';

export type DecodeResult =
  | { readonly tag: 'Decoded'; readonly spans: readonly ReceivedSpan[] }
  | { readonly tag: 'Undecodable'; readonly message: string };

/** The encoding a `Content-Type` header announces, or undefined for one OTLP/HTTP does not define. */
export const encodingOf = (contentType: string | undefined): OtlpEncoding | undefined => {
  const mediaType = contentType?.split(';')[0]?.trim().toLowerCase();
  if (mediaType === 'application/x-protobuf' || mediaType === 'application/protobuf') return 'protobuf';
  if (mediaType === 'application/json') return 'json';
  return undefined;
};

// Thrown from deep inside the readers and caught once in decodeExportRequest, which turns it
// into a value; threading a result through every recursive reader would bury the rules.
const fail = (path: string, problem: string): never => {
  throw new Error(`${path}: ${problem}`);
};

const show = (value: unknown): string =>
  typeof value === 'string' ? JSON.stringify(value) : value instanceof Uint8Array ? 'bytes' : String(value);

interface Dialect {
  /** An id field as lower-case hex ('' when absent). */
  readonly hex: (value: unknown, path: string) => string;
  readonly bytes: (value: unknown, path: string) => Buffer;
}

const protobufDialect: Dialect = {
  hex: (value, path) =>
    value === undefined
      ? ''
      : value instanceof Uint8Array
        ? Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex')
        : fail(path, 'expected bytes'),
  bytes: (value, path) =>
    value instanceof Uint8Array
      ? Buffer.from(value.buffer, value.byteOffset, value.byteLength)
      : fail(path, 'expected bytes'),
};

const jsonDialect: Dialect = {
  hex: (value, path) =>
    value === undefined || value === null
      ? ''
      : typeof value === 'string' && /^(?:[0-9a-fA-F]{2})*$/.test(value)
        ? value.toLowerCase()
        : fail(path, `expected an id as hex digits (OTLP/JSON ids are hex, not base64), got ${show(value)}`),
  bytes: (value, path) =>
    typeof value === 'string' && /^[A-Za-z0-9+/_-]*={0,2}$/.test(value)
      ? Buffer.from(value, 'base64')
      : fail(path, `expected base64, got ${show(value)}`),
};

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array);

/** An embedded message; absent (or JSON null) reads as the empty message, as in protobuf. */
const message = (value: unknown, path: string): Readonly<Record<string, unknown>> =>
  value === undefined || value === null
    ? {}
    : isRecord(value)
      ? value
      : fail(path, `expected an object, got ${show(value)}`);

const repeated = (value: unknown, path: string): readonly unknown[] =>
  value === undefined || value === null ? [] : Array.isArray(value) ? value : fail(path, 'expected an array');

const text = (value: unknown, path: string): string =>
  value === undefined || value === null
    ? ''
    : typeof value === 'string'
      ? value
      : fail(path, `expected a string, got ${show(value)}`);

const int64 = (value: unknown, path: string): bigint => {
  if (value === undefined || value === null) return 0n;
  if (typeof value === 'number' && Number.isInteger(value)) return BigInt(value);
  if (typeof value === 'string' && /^-?\d+$/.test(value)) return BigInt(value);
  return fail(path, `expected an integer (a decimal string or a number), got ${show(value)}`);
};

const double = (value: unknown, path: string): number => {
  if (typeof value === 'number') return value;
  // Proto3 JSON spells the non-finite doubles as strings and allows numbers in quotes.
  if (typeof value === 'string' && value.trim() !== '' && !Number.isNaN(Number(value))) return Number(value);
  if (value === 'NaN') return Number.NaN;
  return fail(path, `expected a double, got ${show(value)}`);
};

const enumName = <Name extends string>(names: readonly Name[], value: unknown, path: string): Name => {
  if (value === undefined || value === null) return names[0] as Name;
  const name = typeof value === 'number' && Number.isInteger(value) ? names[value] : undefined;
  return name ?? fail(path, `expected one of the integers 0…${names.length - 1} (OTLP enums), got ${show(value)}`);
};

const id = (dialect: Dialect, value: unknown, bytes: number, path: string): string => {
  const hex = dialect.hex(value, path);
  return hex.length === bytes * 2 ? hex : fail(path, `expected an id of ${bytes} bytes, got ${hex.length / 2}`);
};

const anyValue = (dialect: Dialect, value: unknown, path: string): unknown => {
  const v = message(value, path);
  if (v['stringValue'] !== undefined) return text(v['stringValue'], `${path}.stringValue`);
  if (v['boolValue'] !== undefined) {
    return typeof v['boolValue'] === 'boolean' ? v['boolValue'] : fail(`${path}.boolValue`, 'expected a boolean');
  }
  if (v['intValue'] !== undefined) {
    const int = int64(v['intValue'], `${path}.intValue`);
    return int >= Number.MIN_SAFE_INTEGER && int <= Number.MAX_SAFE_INTEGER ? Number(int) : int;
  }
  if (v['doubleValue'] !== undefined) return double(v['doubleValue'], `${path}.doubleValue`);
  if (v['arrayValue'] !== undefined) {
    const values = repeated(message(v['arrayValue'], `${path}.arrayValue`)['values'], `${path}.arrayValue.values`);
    return values.map((item, i) => anyValue(dialect, item, `${path}.arrayValue.values[${i}]`));
  }
  if (v['kvlistValue'] !== undefined) {
    return attributes(
      dialect,
      message(v['kvlistValue'], `${path}.kvlistValue`)['values'],
      `${path}.kvlistValue.values`,
    );
  }
  if (v['bytesValue'] !== undefined) return dialect.bytes(v['bytesValue'], `${path}.bytesValue`);
  return null;
};

const attributes = (dialect: Dialect, value: unknown, path: string): Attributes =>
  Object.fromEntries(
    repeated(value, path).map((item, i) => {
      const kv = message(item, `${path}[${i}]`);
      return [text(kv['key'], `${path}[${i}].key`), anyValue(dialect, kv['value'], `${path}[${i}].value`)];
    }),
  );

const event = (dialect: Dialect, value: unknown, path: string): SpanEvent => {
  const e = message(value, path);
  return {
    name: text(e['name'], `${path}.name`),
    timeUnixNano: int64(e['timeUnixNano'], `${path}.timeUnixNano`),
    attributes: attributes(dialect, e['attributes'], `${path}.attributes`),
  };
};

const link = (dialect: Dialect, value: unknown, path: string): SpanLink => {
  const l = message(value, path);
  return {
    traceId: id(dialect, l['traceId'], 16, `${path}.traceId`),
    spanId: id(dialect, l['spanId'], 8, `${path}.spanId`),
    attributes: attributes(dialect, l['attributes'], `${path}.attributes`),
  };
};

const span = (
  dialect: Dialect,
  value: unknown,
  path: string,
  resource: Attributes,
  scope: ReceivedSpan['scope'],
): ReceivedSpan => {
  const s = message(value, path);
  const parentSpanId = dialect.hex(s['parentSpanId'], `${path}.parentSpanId`);
  const status = message(s['status'], `${path}.status`);
  const statusMessage = text(status['message'], `${path}.status.message`);
  return {
    traceId: id(dialect, s['traceId'], 16, `${path}.traceId`),
    spanId: id(dialect, s['spanId'], 8, `${path}.spanId`),
    ...(parentSpanId === '' ? {} : { parentSpanId: id(dialect, s['parentSpanId'], 8, `${path}.parentSpanId`) }),
    name: text(s['name'], `${path}.name`),
    kind: enumName(SPAN_KINDS, s['kind'], `${path}.kind`),
    startTimeUnixNano: int64(s['startTimeUnixNano'], `${path}.startTimeUnixNano`),
    endTimeUnixNano: int64(s['endTimeUnixNano'], `${path}.endTimeUnixNano`),
    attributes: attributes(dialect, s['attributes'], `${path}.attributes`),
    events: repeated(s['events'], `${path}.events`).map((e, i) => event(dialect, e, `${path}.events[${i}]`)),
    links: repeated(s['links'], `${path}.links`).map((l, i) => link(dialect, l, `${path}.links[${i}]`)),
    status: {
      code: enumName(STATUS_CODES, status['code'], `${path}.status.code`),
      ...(statusMessage === '' ? {} : { message: statusMessage }),
    },
    resource,
    scope,
  };
};

const exportRequest = (dialect: Dialect, value: unknown): ReceivedSpan[] =>
  repeated(message(value, 'request')['resourceSpans'], 'resourceSpans').flatMap((item, i) => {
    const path = `resourceSpans[${i}]`;
    const resourceSpans = message(item, path);
    const resource = attributes(
      dialect,
      message(resourceSpans['resource'], `${path}.resource`)['attributes'],
      `${path}.resource.attributes`,
    );
    return repeated(resourceSpans['scopeSpans'], `${path}.scopeSpans`).flatMap((item, j) => {
      const scopePath = `${path}.scopeSpans[${j}]`;
      const scopeSpans = message(item, scopePath);
      const scopeMessage = message(scopeSpans['scope'], `${scopePath}.scope`);
      const version = text(scopeMessage['version'], `${scopePath}.scope.version`);
      const scope = {
        name: text(scopeMessage['name'], `${scopePath}.scope.name`),
        ...(version === '' ? {} : { version }),
      };
      return repeated(scopeSpans['spans'], `${scopePath}.spans`).map((s, k) =>
        span(dialect, s, `${scopePath}.spans[${k}]`, resource, scope),
      );
    });
  });

/** OTLP/JSON keys are lowerCamelCase; a snake_case key means the sender used the .proto names. */
const rejectSnakeCase = (value: unknown, path: string): void => {
  if (Array.isArray(value)) value.forEach((item, i) => rejectSnakeCase(item, `${path}[${i}]`));
  else if (isRecord(value)) {
    for (const [key, item] of Object.entries(value)) {
      if (key.includes('_')) fail(`${path}.${key}`, 'OTLP/JSON keys are lowerCamelCase, not the .proto field names');
      rejectSnakeCase(item, `${path}.${key}`);
    }
  }
};

const toTree = (body: Buffer, encoding: OtlpEncoding): unknown => {
  if (encoding === 'json') {
    const parsed: unknown = JSON.parse(body.toString('utf8'));
    rejectSnakeCase(parsed, 'request');
    return parsed;
  }
  const { exportRequest: type } = otlpTypes();
  return type.toObject(type.decode(body), { longs: String, enums: Number, defaults: false });
};

export const decodeExportRequest = (body: Buffer, encoding: OtlpEncoding): DecodeResult => {
  try {
    const spans = exportRequest(encoding === 'json' ? jsonDialect : protobufDialect, toTree(body, encoding));
    return { tag: 'Decoded', spans };
  } catch (error) {
    // Besides the readers' own complaints, JSON.parse and protobufjs ("index out of range", …)
    // throw plain Errors for a malformed body: all of them are the sender's fault.
    if (error instanceof Error) {
      return { tag: 'Undecodable', message: `not an OTLP ${encoding} ExportTraceServiceRequest: ${error.message}` };
    }
    throw error;
  }
};

/** An empty ExportTraceServiceResponse: full success. */
export const encodeExportResponse = (encoding: OtlpEncoding): Buffer =>
  encoding === 'json'
    ? Buffer.from('{}')
    : Buffer.from(otlpTypes().exportResponse.encode(otlpTypes().exportResponse.create({})).finish());

/** A google.rpc.Status, the body OTLP/HTTP prescribes for a failed export. */
export const encodeRpcStatus = (encoding: OtlpEncoding, code: number, text: string): Buffer => {
  if (encoding === 'json') return Buffer.from(JSON.stringify({ code, message: text }));
  const { rpcStatus } = otlpTypes();
  return Buffer.from(rpcStatus.encode(rpcStatus.create({ code, message: text })).finish());
};
