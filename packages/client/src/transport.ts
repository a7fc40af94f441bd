import type { IncomingHttpHeaders } from 'node:http';
import { errorForStatus, PlantStoreError, type PlantStoreErrorDetails } from './client-error.js';
import { decodeErrorBody } from './decode-body.js';
import {
  abortFailure,
  createPipeline,
  isRetryableFailure,
  networkFailure,
  type Pipeline,
  type TransportConfig,
} from './request-pipeline.js';
import { backoffDelay, isRetryableResponse, resolveRetry, type RetryOptions, type RetryPolicy } from './retry.js';
import { parseRetryAfter } from './retry-after.js';

export type { TransportConfig } from './request-pipeline.js';

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

export interface OutgoingRequest {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
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

/**
 * Sends plant requests through the client's pipeline (`request-pipeline.ts`: headers, hooks,
 * aborts, the wait between attempts) and decides which answers to retry; never decodes bodies.
 */
export const createTransport = (config: TransportConfig, pipeline: Pipeline = createPipeline(config)) => {
  const send = async (request: OutgoingRequest, call: CallOptions = {}): Promise<Exchange> => {
    const policy = resolveRetry(config.retry, call.retry);
    const started = pipeline.startCall(call);
    const { requestId, signal, timeout } = started;
    const url = new URL(request.path, config.baseUrl);
    for (const [key, value] of Object.entries(request.query ?? {})) url.searchParams.set(key, value);
    const maxRetries = request.retryable(policy) ? policy.limit : 0;
    const own: Record<string, string> = {};
    if (request.body !== undefined) own['content-type'] = request.contentType ?? 'application/json; charset=utf-8';
    if (request.idempotencyKey !== undefined) own['idempotency-key'] = request.idempotencyKey;
    if (request.prefer !== undefined) own['prefer'] = request.prefer;
    if (request.conditions?.ifMatch !== undefined) own['if-match'] = request.conditions.ifMatch;
    if (request.conditions?.ifNoneMatch !== undefined) own['if-none-match'] = request.conditions.ifNoneMatch;

    for (let attempt = 1; ; attempt++) {
      const details: PlantStoreErrorDetails = {
        method: request.method,
        url: url.href,
        requestId,
        attempts: attempt,
        ...(request.idempotencyKey === undefined ? {} : { idempotencyKey: request.idempotencyKey }),
      };
      if (pipeline.aborted(started)) throw abortFailure(signal as AbortSignal, { ...details, attempts: attempt - 1 });
      const info = await pipeline.prepare(started, { method: request.method, url, attempt, headers: own });
      if (info === undefined) throw abortFailure(signal as AbortSignal, details);

      let failure: PlantStoreError;
      let delayMs: number;
      try {
        const response = await pipeline.send(started, info, request.body);
        await pipeline.responded(info, response);
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
        delayMs = retryAfter ?? backoffDelay(attempt, policy, pipeline.random);
      } catch (error) {
        if (error instanceof PlantStoreError) throw error;
        failure = networkFailure(error, signal, timeout, details);
        if (!isRetryableFailure(failure) || attempt > maxRetries) throw failure;
        delayMs = backoffDelay(attempt, policy, pipeline.random);
      }

      if (!(await pipeline.waitToRetry(started, { request: info, error: failure, delayMs })))
        throw abortFailure(signal as AbortSignal, details);
    }
  };

  return { send };
};

export type Transport = ReturnType<typeof createTransport>;
