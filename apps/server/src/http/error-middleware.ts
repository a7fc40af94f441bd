import { performance } from 'node:perf_hooks';
import type { Logger } from '../logger.js';
import type { AppMiddleware } from './context.js';
import { internalError } from './request-error.js';
import { sendError } from './respond.js';
import { matchedRoute } from './route-template.js';
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
 * The first real middleware. Expected failures are answered where they occur (sendError); anything
 * thrown below it is a defect, answered with a generic 500 whose cause only the log sees.
 * It then writes the request's one log line (method, route, status, duration, request id) and,
 * with metrics on, counts the request.
 */
export const createErrorMiddleware = (
  logger: Logger,
  isShuttingDown: () => boolean,
  metrics?: Metrics,
): AppMiddleware => {
  // The per-request line holds only fixed, non-secret fields (never headers, bodies or errors), so
  // it skips redaction, which costs several microseconds a line; 5xx lines (with `err`) keep it.
  const requestLog = logger.child({}, { redact: [] });
  const writeLine = (line: { readonly status: number }, cause: unknown): void => {
    if (line.status >= 500) logger.error({ ...line, err: cause }, 'request failed');
    else requestLog.info(line, 'request');
  };
  return async (ctx, next) => {
    const started = performance.now();
    metrics?.requestStarted();
    try {
      await next();
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
    const { trace, cause } = ctx.state;
    // Traced: written inside the request's trace, where the logger's mixin adds trace_id and
    // span_id (spreading them into the line here cost a traced request a quarter of its time).
    if (trace === undefined) writeLine(line, cause);
    else trace.enter(() => writeLine(line, cause));
  };
};
