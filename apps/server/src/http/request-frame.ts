import { performance } from 'node:perf_hooks';
import type { Logger } from '../logger.js';
import type { AppMiddleware } from './context.js';
import { endOfReads } from './reply-after-reads.js';
import { internalError } from './request-error.js';
import { refuseRequestHead, requestHeadProblem } from './request-head.js';
import { chooseRequestId } from './request-id.js';
import { sendError } from './respond.js';
import { matchedRoute } from './route-template.js';
import { setSecurityHeaders } from './security-headers.js';
import type { Metrics } from '../ops/metrics.js';

const keptOnDefect = new Set([
  'x-request-id',
  'x-content-type-options',
  'content-security-policy',
  'cache-control',
  'vary',
  'access-control-allow-origin',
  'access-control-expose-headers',
]);

/**
 * The outermost middleware (inside the request's span when tracing is on), in this order:
 * 1. the reply is held until the turn's reads are over (reply-after-reads.ts);
 * 2. `X-Request-Id` (request-id.ts) and the security headers (security-headers.ts) are set, so
 *    that every answer below carries them, errors included;
 * 3. the request head is checked (request-head.ts): a refusal is answered here, before routing;
 * 4. anything thrown below is a defect, answered with a generic 500 whose cause only the log sees
 *    (expected failures are answered where they occur, by sendError);
 * 5. the request's one log line is written (method, route, status, duration, request id) and, with
 *    metrics on, the request counted.
 * One frame instead of five: every frame Koa composes costs a request a dispatch and a promise
 * (`pnpm bench`, apps/bench/README.md).
 */
export const createRequestFrame = (logger: Logger, isShuttingDown: () => boolean, metrics?: Metrics): AppMiddleware => {
  // The per-request line holds only fixed, non-secret fields (never headers, bodies or errors), so
  // it skips redaction, which costs several microseconds a line; 5xx lines (with `err`) keep it.
  const requestLog = logger.child({}, { redact: [] });
  const writeLine = (line: { readonly status: number }, cause: unknown): void => {
    if (line.status >= 500) logger.error({ ...line, err: cause }, 'request failed');
    else requestLog.info(line, 'request');
  };
  return async (ctx, next) => {
    const reads = endOfReads();
    const started = performance.now();
    metrics?.requestStarted();
    const { req, res } = ctx;
    const requestId = chooseRequestId(req.headers['x-request-id']);
    ctx.state.requestId = requestId;
    res.setHeader('X-Request-Id', requestId);
    setSecurityHeaders(res, req.url);
    try {
      const problem = requestHeadProblem(req);
      if (problem === undefined) await next();
      else refuseRequestHead(ctx, problem);
    } catch (thrown) {
      ctx.state.cause = thrown;
      if (!ctx.headerSent) {
        // Nothing a half-finished handler set (Location, Link…) may leak into the 500; what every
        // answer carries (the id, the security and CORS headers) stays.
        for (const name of ctx.res.getHeaderNames()) if (!keptOnDefect.has(name)) ctx.res.removeHeader(name);
        sendError(ctx, internalError);
      }
    }
    // Once shutdown began, no connection is kept alive after its current response.
    if (isShuttingDown() && !ctx.headerSent) ctx.set('Connection', 'close');
    const route = matchedRoute(ctx);
    const status = ctx.status;
    const ms = performance.now() - started;
    const line = {
      reqId: ctx.state.requestId,
      method: ctx.method,
      route: route ?? null,
      status,
      ms: Math.round(ms * 100) / 100,
    };
    metrics?.requestFinished({
      method: ctx.method,
      route,
      status,
      seconds: ms / 1000,
      errorTag: ctx.state.errorTag,
      replayed: ctx.res.getHeader('idempotent-replayed') === 'true',
    });
    // Traced, this runs inside the request's span (trace-requests.ts), where the logger's mixin
    // adds trace_id and span_id.
    writeLine(line, ctx.state.cause);
    await reads;
  };
};
