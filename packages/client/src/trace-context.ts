import { createRequire } from 'node:module';

/**
 * The part of `@opentelemetry/api` the client uses, written out rather than imported so that no
 * published declaration names a package the user may not have installed.
 */
export interface OtelApi {
  readonly context: { active(): unknown };
  readonly propagation: { inject(context: unknown, carrier: Record<string, string>): void };
  readonly trace: {
    getSpanContext(context: unknown): SpanContextLike | undefined;
    isSpanContextValid(spanContext: SpanContextLike): boolean;
  };
}

interface SpanContextLike {
  readonly traceId: string;
  readonly spanId: string;
  readonly traceFlags: number;
  readonly traceState?: { serialize(): string };
}

/**
 * `@opentelemetry/api` is an optional peer dependency, so it is looked up once, on the first
 * request, and a missing (or broken) copy only turns tracing off: telemetry must never stop a
 * request. `require` rather than `import()` because it is synchronous: the first request already
 * sees the caller's context, and no request waits on a promise for it. Resolving from this file
 * finds the copy the caller installed beside the client. Its CommonJS build shares the providers,
 * context manager and propagators the caller registered through the ESM build, because the API
 * keeps them on one global symbol, not in module state.
 */
const requireApi = (): OtelApi | undefined => {
  try {
    return createRequire(import.meta.url)('@opentelemetry/api') as OtelApi;
  } catch {
    return undefined;
  }
};

const hex2 = (flags: number): string => (flags & 0xff).toString(16).padStart(2, '0');

/**
 * Returns a function giving the trace headers (`traceparent`, `tracestate`, and whatever other
 * propagators the caller registered write) of the caller's active span, or undefined when there
 * is none or the API is not installed. `load` runs at most once.
 */
export const createTraceHeaders = (load: () => OtelApi | undefined) => {
  let api: OtelApi | null | undefined;
  return (): Readonly<Record<string, string>> | undefined => {
    if (api === null) return undefined;
    api ??= load() ?? null;
    if (api === null) return undefined;
    const active = api.context.active();
    const span = api.trace.getSpanContext(active);
    if (span === undefined || !api.trace.isSpanContextValid(span)) return undefined;
    const carrier: Record<string, string> = {};
    api.propagation.inject(active, carrier);
    const headers: Record<string, string> = {};
    // Header names are case-insensitive; lower case lets the client's own headers and the hooks replace them.
    for (const [name, value] of Object.entries(carrier)) {
      if (typeof value === 'string') headers[name.toLowerCase()] = value;
    }
    // No propagator registered (the API's default is a no-op), or only ones of another format.
    if (headers['traceparent'] === undefined) {
      headers['traceparent'] = `00-${span.traceId}-${span.spanId}-${hex2(span.traceFlags)}`;
      const state = span.traceState?.serialize();
      if (state !== undefined && state !== '' && headers['tracestate'] === undefined) headers['tracestate'] = state;
    }
    return headers;
  };
};

/** The trace headers of the caller's active span, through the installed `@opentelemetry/api`. */
export const traceHeaders = createTraceHeaders(requireApi);
