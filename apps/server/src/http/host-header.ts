import type { AppMiddleware } from './context.js';
import { malformedRequest } from './request-error.js';
import { sendError } from './respond.js';

const missingHost = malformedRequest('missing Host header; HTTP/1.1 requires one');

/**
 * HTTP/1.1 requires a `Host` header (RFC 9112 §3.2: a server answers 400 to a request without
 * one); HTTP/1.0 may omit it. Node's own check (`requireHostHeader`) answers a bare 400 before the
 * app runs (empty body, no Content-Type, no X-Request-Id, no log line), so http/server.ts turns it
 * off and this middleware, right after the request id and the error middleware, answers the
 * contract's JSON 400 with the request's log line instead. The connection then closes, as Node's
 * check did: a client that omits Host may frame the rest of its bytes wrongly too.
 */
export const requireHostHeader: AppMiddleware = (ctx, next) => {
  const { req } = ctx;
  if (req.headers.host !== undefined || req.httpVersionMajor < 1 || (req.httpVersionMajor === 1 && req.httpVersionMinor === 0)) return next();
  ctx.set('Connection', 'close');
  sendError(ctx, missingHost);
  return undefined;
};
