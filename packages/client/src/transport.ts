import { randomUUID } from 'node:crypto';
import type { Agent as HttpAgent, IncomingHttpHeaders } from 'node:http';
import type { Agent as HttpsAgent } from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';
import got, { RequestError, TimeoutError as GotTimeoutError } from 'got';
import {
  AbortError,
  ConnectionError,
  errorForStatus,
  PlantStoreError,
  TimeoutError,
  type PlantStoreErrorDetails,
} from './client-error.js';
import { decodeErrorBody } from './decode-body.js';
import type { PlantStoreHooks, RequestInfo } from './hooks.js';
import { backoffDelay, isRetryableResponse, resolveRetry, type RetryOptions, type RetryPolicy } from './retry.js';
import { parseRetryAfter } from './retry-after.js';
import { traceHeaders } from './trace-context.js';

/** Options every operation takes as its last argument; they override the client's. */
export interface CallOptions {
  /** Per-attempt timeout in ms (default: the client's, 30 000). */
  readonly timeout?: number;
  /** A retry limit or partial retry options, merged over the client's. */
  readonly retry?: number | RetryOptions;
  /** Aborts this call (the client-wide signal aborts it too). */
  readonly signal?: AbortSignal;
  /** The `X-Request-Id` to send (`[A-Za-z0-9._:-]{1,128}`); a random UUID by default. */
  readonly requestId?: string;
}

export interface TransportConfig {
  readonly baseUrl: URL;
  readonly token: string;
  readonly timeout: number;
  readonly retry: RetryPolicy;
  readonly hooks: PlantStoreHooks;
  readonly agent: HttpAgent | HttpsAgent | undefined;
  readonly signal: AbortSignal | undefined;
  readonly userAgent: string;
  /** For tests of the backoff only; Math.random by default. */
  readonly random?: () => number;
}

export interface OutgoingRequest {
  readonly method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Relative to the base URL, without a leading slash: `plants`, `plants/7`. */
  readonly path: string;
  /** Written with `URLSearchParams` (`application/x-www-form-urlencoded`: a space becomes `+`). */
  readonly query?: Readonly<Record<string, string>>;
  readonly body?: string;
  /** The body's `Content-Type`; default `application/json; charset=utf-8`. */
  readonly contentType?: string;
  /** `If-Match` / `If-None-Match`, sent verbatim on every attempt. */
  readonly conditions?: { readonly ifMatch?: string | undefined; readonly ifNoneMatch?: string | undefined };
  /** Sent as `Idempotency-Key`, the same on every attempt. */
  readonly idempotencyKey?: string;
  /** Sent as `Prefer` (RFC 7240), e.g. `count=exact`. */
  readonly prefer?: string;
  /** Whether this request may be retried under `policy`. */
  readonly retryable: (policy: RetryPolicy) => boolean;
}

/** A response that arrived, with what the error classes need to describe it. */
export interface Exchange {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
  readonly details: PlantStoreErrorDetails;
  /** The URL of the request, to resolve relative `Location` and `Link` targets against. */
  readonly url: URL;
  /** `Idempotent-Replayed: true`: the server answered with the saved answer of an earlier request with the same key. */
  readonly replayed: boolean;
  /** The response's `ETag`, verbatim (quotes included); undefined when it sent none. */
  readonly etag: string | undefined;
}

export const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export const header = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/** The error for a response whose status is not the operation's success. */
export const failureOf = (exchange: Exchange): PlantStoreError =>
  errorForStatus(
    {
      status: exchange.status,
      body: decodeErrorBody(exchange.body),
      retryAfterMs: parseRetryAfter(header(exchange.headers, 'retry-after')),
      replayed: exchange.replayed,
    },
    exchange.details,
  );

export const combineSignals = (a: AbortSignal | undefined, b: AbortSignal | undefined): AbortSignal | undefined =>
  a === undefined ? b : b === undefined ? a : AbortSignal.any([a, b]);

const abortFailure = (signal: AbortSignal, details: PlantStoreErrorDetails): PlantStoreError => {
  const reason: unknown = signal.reason;
  const timedOut = reason instanceof Error && reason.name === 'TimeoutError';
  return timedOut
    ? new TimeoutError('the request was aborted by a timeout signal', { ...details, cause: reason })
    : new AbortError('the request was aborted', { ...details, cause: reason });
};

export const networkFailure = (
  error: unknown,
  signal: AbortSignal | undefined,
  timeout: number,
  details: PlantStoreErrorDetails,
): PlantStoreError => {
  if (signal?.aborted === true) return abortFailure(signal, details);
  if (error instanceof GotTimeoutError) {
    return new TimeoutError(`no response within ${timeout} ms`, { ...details, cause: error });
  }
  if (error instanceof RequestError) {
    return new ConnectionError(`cannot reach the Plant Store: ${error.message}`, {
      ...details,
      code: error.code,
      cause: error,
    });
  }
  throw error;
};

const checkTimeout = (timeout: number): number => {
  if (!Number.isFinite(timeout) || timeout <= 0)
    throw new TypeError(`timeout must be a positive number of ms, got ${timeout}`);
  return timeout;
};

/**
 * The headers every request of this client starts with. The trace headers come first so the
 * client's own headers win over a propagator's, and before the hooks so a caller's beforeRequest
 * hook can replace or remove them.
 */
export const baseHeaders = (
  config: TransportConfig,
  requestId: string,
  trace: Readonly<Record<string, string>> | undefined,
): Record<string, string> => ({
  ...trace,
  accept: 'application/json',
  authorization: `Bearer ${config.token}`,
  'user-agent': config.userAgent,
  'x-request-id': requestId,
});

/** got's `agent` option for `url`: the configured agent under the URL's protocol. */
export const agentFor = (config: TransportConfig, url: URL): { http?: HttpAgent; https?: HttpsAgent } | undefined =>
  config.agent === undefined
    ? undefined
    : url.protocol === 'https:'
      ? { https: config.agent as HttpsAgent }
      : { http: config.agent };

/**
 * Sends requests with auth, idempotency keys, timeouts, abort signals, hooks and retries; never
 * decodes bodies.
 */
export const createTransport = (config: TransportConfig) => {
  const random = config.random ?? Math.random;

  const send = async (request: OutgoingRequest, call: CallOptions = {}): Promise<Exchange> => {
    const policy = resolveRetry(config.retry, call.retry);
    const timeout = checkTimeout(call.timeout ?? config.timeout);
    const signal = combineSignals(config.signal, call.signal);
    const requestId = call.requestId ?? randomUUID();
    if (!REQUEST_ID.test(requestId))
      throw new TypeError(`requestId must match ${REQUEST_ID.source}, got ${JSON.stringify(requestId)}`);
    const url = new URL(request.path, config.baseUrl);
    for (const [key, value] of Object.entries(request.query ?? {})) url.searchParams.set(key, value);
    const maxRetries = request.retryable(policy) ? policy.limit : 0;
    const agent = agentFor(config, url);
    // Read once per call: every attempt, retries included, belongs to the same caller's span.
    const trace = traceHeaders();

    for (let attempt = 1; ; attempt++) {
      const details: PlantStoreErrorDetails = {
        method: request.method,
        url: url.href,
        requestId,
        attempts: attempt,
        ...(request.idempotencyKey === undefined ? {} : { idempotencyKey: request.idempotencyKey }),
      };
      if (signal?.aborted === true) throw abortFailure(signal, { ...details, attempts: attempt - 1 });
      const headers = baseHeaders(config, requestId, trace);
      if (request.body !== undefined)
        headers['content-type'] = request.contentType ?? 'application/json; charset=utf-8';
      if (request.idempotencyKey !== undefined) headers['idempotency-key'] = request.idempotencyKey;
      if (request.prefer !== undefined) headers['prefer'] = request.prefer;
      if (request.conditions?.ifMatch !== undefined) headers['if-match'] = request.conditions.ifMatch;
      if (request.conditions?.ifNoneMatch !== undefined) headers['if-none-match'] = request.conditions.ifNoneMatch;
      const info: RequestInfo = { method: request.method, url: url.href, headers, attempt, requestId };
      for (const hook of config.hooks.beforeRequest ?? []) await hook(info);

      let failure: PlantStoreError;
      let delayMs: number;
      try {
        const response = await got(url, {
          method: request.method,
          headers: info.headers,
          ...(request.body === undefined ? {} : { body: request.body }),
          throwHttpErrors: false,
          followRedirect: false,
          responseType: 'buffer',
          retry: { limit: 0 },
          timeout: { request: timeout },
          ...(signal === undefined ? {} : { signal }),
          ...(agent === undefined ? {} : { agent }),
        });
        for (const hook of config.hooks.afterResponse ?? []) {
          await hook({ request: info, status: response.statusCode, headers: response.headers });
        }
        const exchange: Exchange = {
          status: response.statusCode,
          headers: response.headers,
          body: response.body,
          details: { ...details, requestId: header(response.headers, 'x-request-id') ?? requestId },
          url,
          replayed: header(response.headers, 'idempotent-replayed')?.trim().toLowerCase() === 'true',
          etag: header(response.headers, 'etag') || undefined,
        };
        const rawRetryAfter = header(response.headers, 'retry-after');
        if (!isRetryableResponse(exchange.status, rawRetryAfter) || attempt > maxRetries) return exchange;
        const retryAfter = parseRetryAfter(rawRetryAfter);
        if (retryAfter !== undefined && retryAfter > policy.maxRetryAfterMs) return exchange;
        failure = failureOf(exchange);
        delayMs = retryAfter ?? backoffDelay(attempt, policy, random);
      } catch (error) {
        if (error instanceof PlantStoreError) throw error;
        failure = networkFailure(error, signal, timeout, details);
        const retriable = failure instanceof ConnectionError || failure instanceof TimeoutError;
        if (!retriable || attempt > maxRetries) throw failure;
        delayMs = backoffDelay(attempt, policy, random);
      }

      for (const hook of config.hooks.beforeRetry ?? []) await hook({ request: info, error: failure, delayMs });
      try {
        await sleep(delayMs, undefined, signal === undefined ? {} : { signal });
      } catch {
        throw abortFailure(signal as AbortSignal, details);
      }
    }
  };

  return { send };
};

export type Transport = ReturnType<typeof createTransport>;
