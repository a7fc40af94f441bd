import type { PlantStoreError } from './client-error.js';

/** One attempt about to be sent. `beforeRequest` hooks may add or change `headers`. */
export interface RequestInfo {
  readonly method: string;
  readonly url: string;
  readonly headers: Record<string, string>;
  /** 1 for the first attempt, 2 for the first retry … */
  readonly attempt: number;
  /** The `X-Request-Id` this client sends (the same for every attempt of one call). */
  readonly requestId: string;
}

/** A response as it arrived, before it is decoded. */
export interface ResponseInfo {
  readonly request: RequestInfo;
  readonly status: number;
  readonly headers: Readonly<Record<string, string | readonly string[] | undefined>>;
}

/** A retry about to happen: the attempt that failed, why, and how long the client waits. */
export interface RetryInfo {
  readonly request: RequestInfo;
  readonly error: PlantStoreError;
  readonly delayMs: number;
}

/**
 * Observe or adjust requests (logging, tracing headers, metrics). Hooks run in order and are
 * awaited; an exception thrown by a hook is not caught (it is a defect, not a PlantStoreError).
 */
export interface PlantStoreHooks {
  readonly beforeRequest?: ReadonlyArray<(request: RequestInfo) => void | Promise<void>>;
  readonly afterResponse?: ReadonlyArray<(response: ResponseInfo) => void | Promise<void>>;
  readonly beforeRetry?: ReadonlyArray<(retry: RetryInfo) => void | Promise<void>>;
}
