/**
 * The one way this client sends a request: the plant calls (`transport.ts`) and the change feed
 * (`change-feed.ts`) both go through it, so a header, a hook, an abort rule or a retry step
 * written here applies to both. It owns the got instance (no other module imports got's
 * request functions), the client's headers (trace context, `Accept`, `Authorization`,
 * `User-Agent`, `X-Request-Id`), the `beforeRequest` / `afterResponse` / `beforeRetry` hooks, the
 * abort signals and the wait before another attempt. What differs between the two is what a
 * request is for: a plant call reads its whole answer within the timeout, the feed's stream only
 * its head.
 */
import { randomUUID } from 'node:crypto';
import type { Agent as HttpAgent, IncomingHttpHeaders } from 'node:http';
import type { Agent as HttpsAgent } from 'node:https';
import type { Duplex } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import got, { RequestError, TimeoutError as GotTimeoutError, type Request as GotRequest } from 'got';
import {
  AbortError,
  ConnectionError,
  TimeoutError,
  type PlantStoreError,
  type PlantStoreErrorDetails,
} from './client-error.js';
import type { PlantStoreHooks, RequestInfo, RetryInfo } from './hooks.js';
import type { RetryPolicy } from './retry.js';
import { traceHeaders } from './trace-context.js';

/** The client's settings, resolved and checked by `createPlantStoreClient`. */
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

export const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export const combineSignals = (a: AbortSignal | undefined, b: AbortSignal | undefined): AbortSignal | undefined =>
  a === undefined ? b : b === undefined ? a : AbortSignal.any([a, b]);

/** The error of a request its signal aborted: `TimeoutError` for an `AbortSignal.timeout()`, else `AbortError`. */
export const abortFailure = (signal: AbortSignal, details: PlantStoreErrorDetails): PlantStoreError => {
  const reason: unknown = signal.reason;
  const timedOut = reason instanceof Error && reason.name === 'TimeoutError';
  return timedOut
    ? new TimeoutError('the request was aborted by a timeout signal', { ...details, cause: reason })
    : new AbortError('the request was aborted', { ...details, cause: reason });
};

/** The error of a request that got no answer; anything but got's own errors is a defect and is rethrown. */
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

/** Whether another attempt may help after this error of a request that got no answer. */
export const isRetryableFailure = (error: PlantStoreError): boolean =>
  error instanceof ConnectionError || error instanceof TimeoutError;

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

/** What one caller's operation keeps across its attempts: a plant call and its retries, or one iteration of the feed. */
export interface Call {
  readonly requestId: string;
  readonly signal: AbortSignal | undefined;
  /** Per-attempt timeout in ms. */
  readonly timeout: number;
  /** The caller's trace headers, read once: every attempt belongs to the caller's span. */
  readonly trace: Readonly<Record<string, string>> | undefined;
}

/** One request about to be sent. */
export interface Attempt {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  readonly url: URL;
  /** 1 for the first request of the call. */
  readonly attempt: number;
  /** This request's own headers, over the client's (`content-type`, `if-match`, `last-event-id`, `accept` …). */
  readonly headers?: Readonly<Record<string, string>>;
}

/** A response's head, as the `afterResponse` hooks see it. */
export interface ResponseHead {
  readonly statusCode: number;
  readonly headers: IncomingHttpHeaders;
}

/** A whole answer, as `send` reads it. */
export interface Answer extends ResponseHead {
  readonly body: Buffer;
}

/**
 * The one way the client sends requests (see the top of this file). Declared, not inferred: got's
 * own types stay out of the published declarations (`send` answers with got's response and
 * `stream` is got's request stream, seen here as what the callers use of them), so a user whose
 * TypeScript cannot resolve got's types (`moduleResolution: node10`) can still use the client.
 */
export interface Pipeline {
  readonly random: () => number;
  /** One call (a plant operation, or one connection of the feed): its id, timeout, signal and trace. */
  readonly startCall: (options: {
    readonly timeout?: number | undefined;
    readonly signal?: AbortSignal | undefined;
    readonly requestId?: string | undefined;
  }) => Call;
  readonly aborted: (call: Call) => boolean;
  readonly prepare: (call: Call, attempt: Attempt) => Promise<RequestInfo | undefined>;
  readonly send: (call: Call, info: RequestInfo, body: string | undefined) => Promise<Answer>;
  readonly stream: (call: Call, info: RequestInfo) => Duplex;
  readonly responded: (info: RequestInfo, response: ResponseHead) => Promise<void>;
  readonly waitToRetry: (call: Call, retry: RetryInfo) => Promise<boolean>;
}

export const createPipeline = (config: TransportConfig): Pipeline => {
  const random = config.random ?? Math.random;
  // Every request goes to the base URL's origin (list and feed links to another host are refused),
  // so its protocol picks the agent once. Retries, redirects and status errors are this client's
  // business, not got's.
  const agent = agentFor(config, config.baseUrl);
  const client = got.extend({
    throwHttpErrors: false,
    followRedirect: false,
    retry: { limit: 0 },
    ...(agent === undefined ? {} : { agent }),
  });

  /** The settings of one operation: its signal (with the client's), request id, timeout and trace context. */
  const startCall = (options: {
    readonly timeout?: number | undefined;
    readonly signal?: AbortSignal | undefined;
    readonly requestId?: string | undefined;
  }): Call => {
    const timeout = options.timeout ?? config.timeout;
    if (!Number.isFinite(timeout) || timeout <= 0)
      throw new TypeError(`timeout must be a positive number of ms, got ${timeout}`);
    const requestId = options.requestId ?? randomUUID();
    if (!REQUEST_ID.test(requestId))
      throw new TypeError(`requestId must match ${REQUEST_ID.source}, got ${JSON.stringify(requestId)}`);
    return { requestId, signal: combineSignals(config.signal, options.signal), timeout, trace: traceHeaders() };
  };

  const aborted = (call: Call): boolean => call.signal?.aborted === true;

  /**
   * The headers of one request (the client's, then the request's own), shown to every
   * `beforeRequest` hook, which may change them. Undefined when the call was aborted meanwhile:
   * nothing is to be sent.
   */
  const prepare = async (call: Call, attempt: Attempt): Promise<RequestInfo | undefined> => {
    const headers: Record<string, string> = { ...baseHeaders(config, call.requestId, call.trace), ...attempt.headers };
    const info: RequestInfo = {
      method: attempt.method,
      url: attempt.url.href,
      headers,
      attempt: attempt.attempt,
      requestId: call.requestId,
    };
    for (const hook of config.hooks.beforeRequest ?? []) await hook(info);
    return aborted(call) ? undefined : info;
  };

  /** Sends a prepared request and reads its whole answer, all within the call's timeout. */
  const send = (call: Call, info: RequestInfo, body: string | undefined) =>
    client(info.url, {
      method: info.method as Attempt['method'],
      headers: info.headers,
      ...(body === undefined ? {} : { body }),
      responseType: 'buffer',
      timeout: { request: call.timeout },
      ...(call.signal === undefined ? {} : { signal: call.signal }),
    });

  /**
   * Sends a prepared GET whose body is a stream: the timeout covers the answer's head only, and the
   * body is read as it comes, undecoded (no `Accept-Encoding`: events must not wait in a compressor).
   */
  const stream = (call: Call, info: RequestInfo): GotRequest =>
    client.stream(info.url, {
      headers: info.headers,
      decompress: false,
      timeout: {
        connect: call.timeout,
        secureConnect: call.timeout,
        send: call.timeout,
        response: call.timeout,
      },
      ...(call.signal === undefined ? {} : { signal: call.signal }),
    });

  /** Runs the `afterResponse` hooks on an answer's head. */
  const responded = async (info: RequestInfo, response: ResponseHead): Promise<void> => {
    for (const hook of config.hooks.afterResponse ?? []) {
      await hook({ request: info, status: response.statusCode, headers: response.headers });
    }
  };

  /**
   * Before another attempt: the `beforeRetry` hooks, then the wait. False when the call was
   * aborted during the wait (no attempt is to follow).
   */
  const waitToRetry = async (call: Call, retry: RetryInfo): Promise<boolean> => {
    for (const hook of config.hooks.beforeRetry ?? []) await hook(retry);
    try {
      await sleep(retry.delayMs, undefined, call.signal === undefined ? {} : { signal: call.signal });
      return true;
    } catch {
      return false;
    }
  };

  return { random, startCall, aborted, prepare, send, stream, responded, waitToRetry };
};
