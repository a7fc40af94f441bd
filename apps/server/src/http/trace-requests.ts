import type { Tracing } from '../tracing/tracing.js';
import type { AppMiddleware } from './context.js';
import { matchedRoute } from './route-template.js';

const single = (value: string | string[] | undefined): string | undefined =>
  Array.isArray(value) ? value.join(',') : value;

/**
 * The first middleware when tracing is on: a SERVER span around everything else, continuing the
 * caller's `traceparent`, with the request's route, status and what it answered (a replay, a 412,
 * a 429) once the rest has run. Everything below runs inside the span (tracing.ts: it flows through
 * every await), so each store call is its child and each log line names it. Only the method, path,
 * Host and User-Agent are read: never the token, the query or the body.
 */
export const traceRequests =
  (tracing: Tracing): AppMiddleware =>
  async (ctx, next) => {
    const { headers } = ctx.req;
    const span = tracing.startRequest({
      method: ctx.method,
      path: ctx.path,
      host: single(headers.host),
      userAgent: single(headers['user-agent']),
      traceparent: single(headers.traceparent),
      tracestate: single(headers.tracestate),
    });
    try {
      await span.enter(next);
    } finally {
      span.finish({
        route: matchedRoute(ctx),
        status: ctx.status,
        errorTag: ctx.state.errorTag,
        replayed: ctx.res.getHeader('idempotent-replayed') === 'true',
      });
    }
  };
