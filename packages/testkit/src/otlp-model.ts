/**
 * The one model both OTLP encodings decode into, so a test asserts on spans without caring
 * whether the server exported `http/protobuf` or `http/json`.
 *
 * Attribute values: strings, booleans and doubles as themselves; integers as numbers (bigints
 * beyond ±2^53); bytes as Buffers; arrays as arrays; key-value lists as plain objects; an empty
 * value as `null`.
 */

export type SpanKindName = 'UNSPECIFIED' | 'INTERNAL' | 'SERVER' | 'CLIENT' | 'PRODUCER' | 'CONSUMER';

export type StatusCodeName = 'UNSET' | 'OK' | 'ERROR';

export type Attributes = Readonly<Record<string, unknown>>;

export interface SpanEvent {
  readonly name: string;
  readonly timeUnixNano: bigint;
  readonly attributes: Attributes;
}

export interface SpanLink {
  /** Lower-case hex, 32 digits. */
  readonly traceId: string;
  /** Lower-case hex, 16 digits. */
  readonly spanId: string;
  readonly attributes: Attributes;
}

export interface SpanStatus {
  readonly code: StatusCodeName;
  /** Absent when the exporter sent none (or an empty one). */
  readonly message?: string;
}

export interface ReceivedSpan {
  /** Lower-case hex, 32 digits. */
  readonly traceId: string;
  /** Lower-case hex, 16 digits. */
  readonly spanId: string;
  /** Lower-case hex; absent on a root span. */
  readonly parentSpanId?: string;
  readonly name: string;
  readonly kind: SpanKindName;
  readonly startTimeUnixNano: bigint;
  readonly endTimeUnixNano: bigint;
  readonly attributes: Attributes;
  readonly events: readonly SpanEvent[];
  readonly links: readonly SpanLink[];
  readonly status: SpanStatus;
  /** The attributes of the resource that exported the span (`service.name`, …). */
  readonly resource: Attributes;
  readonly scope: { readonly name: string; readonly version?: string };
}

// Index = the OTLP enum value (opentelemetry.proto.trace.v1.Span.SpanKind, Status.StatusCode).
export const SPAN_KINDS: readonly SpanKindName[] = [
  'UNSPECIFIED',
  'INTERNAL',
  'SERVER',
  'CLIENT',
  'PRODUCER',
  'CONSUMER',
];
export const STATUS_CODES: readonly StatusCodeName[] = ['UNSET', 'OK', 'ERROR'];
