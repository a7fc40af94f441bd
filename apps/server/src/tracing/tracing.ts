/**
 * What the server's parts ask of tracing. One implementation, tracing/otel-tracing.ts (the SDK set
 * up in otel-sdk.ts, the spans described in span-attributes.ts), loaded only when OTEL_* turn
 * tracing on; off, every part holds `undefined` and pays one check. Nothing of the OpenTelemetry
 * SDK or API leaks through these types, so this file loads nothing.
 *
 * The span the running code belongs to flows through AsyncLocalStorage: the request's SERVER span
 * is entered once around everything below it (http/trace-requests.ts), so a store call made after
 * any number of awaits, in a service, a route or the authentication, is a child of its request,
 * and a log line written anywhere below names it. Nothing is handed down by hand. Node 24 and
 * later keep that context in the async context frame, at a cost the bench measures
 * (docs/guides/tracing.md, "What tracing costs").
 */

/** A request's trace context as saved with an outbox event: the W3C headers that continue it. */
export interface SavedTraceContext {
  readonly traceparent: string;
  readonly tracestate?: string | undefined;
}

/** The trace a write was made in, captured when it was queued (a traced request's store span). */
export interface WriteTrace {
  /** What to save with the events the write emits, so their deliveries continue the trace (made when asked). */
  saved(): SavedTraceContext;
  /** Whether the trace is recorded (sampled): only those are linked from a batch span. */
  readonly sampled: boolean;
  /** What the batch span links to (opaque to the stores). */
  readonly link: unknown;
}

/** A span in progress, as the parts that start one hold it. */
export interface SpanHandle {
  /** Something that happened at this instant (a commit, a sync). */
  event(name: string): void;
  /** Ends the span; a `failure` marks it an error, with its type (never its message's values). */
  end(failure?: unknown): void;
}

/** What a request's SERVER span needs from the incoming request; never the token, the query or the body. */
export interface IncomingRequest {
  readonly method: string;
  /** The path without the query. */
  readonly path: string;
  readonly host: string | undefined;
  readonly userAgent: string | undefined;
  readonly traceparent: string | undefined;
  readonly tracestate: string | undefined;
}

/** How a request ended, for its SERVER span. */
export interface FinishedRequest {
  /** The route template (`/plants/{id}`); undefined when no route matched. */
  readonly route: string | undefined;
  readonly status: number;
  /** The error answered, by tag (`PreconditionFailed`, `RateLimited`…), if any. */
  readonly errorTag: string | undefined;
  /** The answer is an idempotent replay of a saved outcome. */
  readonly replayed: boolean;
}

export interface ServerSpan {
  /**
   * Runs `fn` with this request as the current trace: every store operation `fn` starts, before or
   * after an await, is a child of it, and every log line `fn` writes names it.
   */
  enter<T>(fn: () => T): T;
  finish(request: FinishedRequest): void;
}

/** The outcome of one webhook attempt, for its CLIENT span. */
export interface AttemptEnd {
  readonly status?: number | undefined;
  /** Why it failed without a status (a timeout, a refused connection). */
  readonly error?: string | undefined;
}

export interface WebhookAttemptSpan {
  /** `traceparent` (and `tracestate`) to send with the attempt: this span's context. */
  readonly headers: Readonly<Record<string, string>>;
  end(outcome: AttemptEnd): void;
}

export interface WebhookAttempt {
  /** The context saved with the event; undefined when the change was not traced. */
  readonly saved: SavedTraceContext | undefined;
  readonly url: URL;
  readonly endpointId: string;
  readonly deliveryId: number;
  readonly eventId: string;
  /** This attempt's number, from 1. */
  readonly attempt: number;
}

/** The store as tracing sees it: `sqlite` or `postgresql` (db.system.name). */
export type TracedSystem = 'sqlite' | 'postgresql';

/** What the stores ask: the trace of the write being queued, and a span for each batch of writes. */
export interface StoreTracing {
  /** The trace of the store operation running now; undefined outside a traced request. */
  current(): WriteTrace | undefined;
  /**
   * A span for one batch of writes (a group-commit transaction, a write statement), linked to the
   * traces of the writes it carries; undefined when none of them is sampled (nothing to record).
   */
  batch(system: TracedSystem, name: string, writes: readonly (WriteTrace | undefined)[]): SpanHandle | undefined;
}

export interface Tracing extends StoreTracing {
  /** Starts the SERVER span of a request, continuing an incoming `traceparent`. */
  startRequest(request: IncomingRequest): ServerSpan;
  /**
   * Runs one store operation in a child span of the current request's (`db.operation.name`, never
   * a value); runs it bare outside a recorded request. `failed` tells whether its outcome is an error.
   */
  storeOperation<A>(
    system: TracedSystem,
    operation: string,
    collection: string,
    run: () => Promise<A>,
    failed: (outcome: A) => unknown,
  ): Promise<A>;
  /** The CLIENT span of one webhook attempt, continuing the trace saved with its event. */
  startWebhookAttempt(attempt: WebhookAttempt): WebhookAttemptSpan;
  /** `trace_id` and `span_id` of the current trace, for a log line; empty outside one. */
  logFields(): Record<string, string>;
  /** Exports what is queued (within `timeoutMs`), then stops. */
  shutdown(timeoutMs: number): Promise<void>;
}
