import type { ReceivedSpan } from './otlp-model.js';

// Values that read unambiguously without quotes after `key=`.
const BARE = /^[\w./:@+-]+$/;

const json = (value: unknown): string => {
  if (value instanceof Uint8Array) return JSON.stringify(`0x${Buffer.from(value).toString('hex')}`);
  if (Array.isArray(value)) return `[${value.map(json).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    return `{${Object.entries(value)
      .map(([key, item]) => `${JSON.stringify(key)}:${json(item)}`)
      .join(',')}}`;
  }
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
};

const formatValue = (value: unknown): string =>
  typeof value === 'string' && BARE.test(value)
    ? value
    : value instanceof Uint8Array
      ? json(value).slice(1, -1)
      : json(value);

const pairs = (attributes: Readonly<Record<string, unknown>>): string =>
  Object.entries(attributes)
    .map(([key, value]) => ` ${key}=${formatValue(value)}`)
    .join('');

const byStart = (a: ReceivedSpan, b: ReceivedSpan): number =>
  a.startTimeUnixNano < b.startTimeUnixNano ? -1 : a.startTimeUnixNano > b.startTimeUnixNano ? 1 : 0;

/**
 * One trace as an indented text tree, a line per span (`name [KIND] key=value…`, then its status
 * unless UNSET) with its events and links beneath it, children in start order. For test failure
 * messages and docs; spans whose parent was not received are shown at the top level, marked.
 */
export const spanTree = (spans: readonly ReceivedSpan[], traceId: string): string => {
  const trace = spans.filter((span) => span.traceId === traceId.toLowerCase()).sort(byStart);
  if (trace.length === 0) return `(no spans of trace ${traceId})`;
  const ids = new Set(trace.map((span) => span.spanId));
  const children = new Map<string, ReceivedSpan[]>();
  for (const span of trace) {
    if (span.parentSpanId !== undefined && ids.has(span.parentSpanId)) {
      children.set(span.parentSpanId, [...(children.get(span.parentSpanId) ?? []), span]);
    }
  }
  const lines: string[] = [];
  const drawn = new Set<ReceivedSpan>();
  const draw = (span: ReceivedSpan, depth: number, note: string): void => {
    // A span that names itself (or a descendant) as parent must not loop forever.
    if (drawn.has(span)) return;
    drawn.add(span);
    const indent = '  '.repeat(depth);
    const status =
      span.status.code === 'UNSET'
        ? ''
        : ` status=${span.status.code}${span.status.message === undefined ? '' : ` status.message=${formatValue(span.status.message)}`}`;
    lines.push(`${indent}${span.name} [${span.kind}]${pairs(span.attributes)}${status}${note}`);
    for (const event of span.events) lines.push(`${indent}  event: ${event.name}${pairs(event.attributes)}`);
    for (const link of span.links)
      lines.push(`${indent}  link: ${link.traceId}/${link.spanId}${pairs(link.attributes)}`);
    for (const child of children.get(span.spanId) ?? []) draw(child, depth + 1, '');
  };
  for (const span of trace) {
    if (span.parentSpanId === undefined) draw(span, 0, '');
    else if (!ids.has(span.parentSpanId)) draw(span, 0, ` (parent ${span.parentSpanId} not received)`);
  }
  for (const span of trace) draw(span, 0, ' (in a parent cycle)');
  return lines.join('\n');
};
