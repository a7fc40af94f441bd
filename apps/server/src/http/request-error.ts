/** Failures of the HTTP exchange itself, before or beside the domain: each maps to one status. */
export type RequestError =
  | { readonly _tag: 'RouteNotFound'; readonly method: string; readonly path: string }
  | { readonly _tag: 'MethodNotAllowed'; readonly method: string; readonly path: string; readonly allow: string }
  | { readonly _tag: 'UnsupportedMediaType'; readonly reason: string }
  | { readonly _tag: 'PayloadTooLarge'; readonly limit: number }
  | { readonly _tag: 'MalformedBody'; readonly reason: string }
  | { readonly _tag: 'MalformedRequest'; readonly reason: string }
  | { readonly _tag: 'HeadersTooLarge' }
  | { readonly _tag: 'RequestTimeout' }
  | { readonly _tag: 'ExpectationFailed'; readonly expectation: string }
  | { readonly _tag: 'UnsupportedTransferCoding'; readonly codings: string }
  | { readonly _tag: 'NotReady'; readonly reason: string }
  | { readonly _tag: 'RateLimited'; readonly ratePerSecond: number; readonly retryAfterSeconds: number }
  | { readonly _tag: 'IdempotencyKeyInFlight'; readonly key: string }
  | { readonly _tag: 'NotAcceptable'; readonly reason: string }
  | { readonly _tag: 'ChangesExpired'; readonly since: number }
  | { readonly _tag: 'TooManyStreams'; readonly max: number }
  | { readonly _tag: 'InternalError' };

export const routeNotFound = (method: string, path: string): RequestError => ({ _tag: 'RouteNotFound', method, path });
export const methodNotAllowed = (method: string, path: string, allow: string): RequestError => ({
  _tag: 'MethodNotAllowed',
  method,
  path,
  allow,
});
export const unsupportedMediaType = (reason: string): RequestError => ({ _tag: 'UnsupportedMediaType', reason });
export const payloadTooLarge = (limit: number): RequestError => ({ _tag: 'PayloadTooLarge', limit });
export const malformedBody = (reason: string): RequestError => ({ _tag: 'MalformedBody', reason });
export const malformedRequest = (reason: string): RequestError => ({ _tag: 'MalformedRequest', reason });
export const headersTooLarge: RequestError = { _tag: 'HeadersTooLarge' };
export const requestTimeout: RequestError = { _tag: 'RequestTimeout' };
/** An `Expect` header other than 100-continue (the only expectation this server meets). */
export const expectationFailed = (expectation: string): RequestError => ({ _tag: 'ExpectationFailed', expectation });
/** A `Transfer-Encoding` naming a coding besides `chunked` (RFC 9112 §6.1: 501). */
export const unsupportedTransferCoding = (codings: string): RequestError => ({
  _tag: 'UnsupportedTransferCoding',
  codings,
});
export const notReady = (reason: string): RequestError => ({ _tag: 'NotReady', reason });
/** The caller used up its requests; `retryAfterSeconds` (an integer ≥ 1) goes out as `Retry-After`. */
export const rateLimited = (ratePerSecond: number, retryAfterSeconds: number): RequestError => ({
  _tag: 'RateLimited',
  ratePerSecond,
  retryAfterSeconds,
});
/** Another request with the caller's key is being processed (409, `Retry-After: 1`, never saved). */
export const idempotencyKeyInFlight = (key: string): RequestError => ({ _tag: 'IdempotencyKeyInFlight', key });
export const internalError: RequestError = { _tag: 'InternalError' };
/** The `Accept` names no form the route answers in (406). */
export const notAcceptable = (reason: string): RequestError => ({ _tag: 'NotAcceptable', reason });
/** A change above `since` is older than the retention: the reader cannot catch up (410). */
export const changesExpired = (since: number): RequestError => ({ _tag: 'ChangesExpired', since });
/** This process holds as many streams and long polls as it may (503, `Retry-After: 1`). */
export const tooManyStreams = (max: number): RequestError => ({ _tag: 'TooManyStreams', max });
