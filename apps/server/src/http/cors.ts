import cors from '@koa/cors';
import type { AppMiddleware } from './context.js';

/** The methods a browser may use across origins: every method of the /plants routes. */
export const CORS_ALLOW_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
/** The request headers a browser may send across origins (besides the CORS-safelisted ones). */
export const CORS_ALLOW_HEADERS = [
  'Authorization',
  'Content-Type',
  'Idempotency-Key',
  'If-Match',
  'If-None-Match',
  'Prefer',
  // A change feed resumed where it left off (GET /plants/changes).
  'Last-Event-ID',
] as const;
/** The response headers a script on an allowed origin may read (besides the CORS-safelisted ones). */
export const CORS_EXPOSE_HEADERS = [
  'Location',
  'Link',
  'ETag',
  'X-Request-Id',
  'Retry-After',
  'Idempotent-Replayed',
  'RateLimit-Policy',
  'RateLimit',
  'X-Total-Count',
  'Preference-Applied',
  // Where a read stands in the change log (list, then follow).
  'X-Change-Seq',
] as const;

/**
 * CORS for exactly `origins` (CORS_ORIGINS), with @koa/cors. A request from another origin, or
 * with none, passes through untouched: no `Access-Control-*` header. Preflights from an allowed
 * origin are answered 204 here, before authentication and routing, so they reveal nothing about
 * plants. No credentials mode: bearer tokens travel in `Authorization`, which needs none.
 */
export const createCors = (origins: readonly string[]): AppMiddleware => {
  const allowed = new Set(origins);
  return cors({
    origin: (ctx) => {
      const origin = ctx.get('Origin');
      return allowed.has(origin) ? origin : '';
    },
    allowMethods: [...CORS_ALLOW_METHODS],
    allowHeaders: [...CORS_ALLOW_HEADERS],
    exposeHeaders: [...CORS_EXPOSE_HEADERS],
    credentials: false,
    maxAge: 600,
  }) as unknown as AppMiddleware;
};
