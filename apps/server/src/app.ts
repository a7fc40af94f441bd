import Router from '@koa/router';
import Koa from 'koa';
import type { Logger } from './logger.js';
import type { Metrics } from './ops/metrics.js';
import { createPlantService } from './plants/plant-service.js';
import type { Store } from './ports/store.js';
import type { AppState } from './http/context.js';
import { addDocsRoutes } from './http/docs-routes.js';
import { addHealthRoutes } from './http/health-routes.js';
import { addOpenApiRoutes } from './http/openapi-routes.js';
import { addPlantRoutes } from './http/plant-routes.js';
import { addPlantBatchRoutes } from './http/plant-batch-routes.js';
import { KeysInFlight } from './idempotency/keys-in-flight.js';
import { addChangeRoutes } from './http/change-routes.js';
import { ChangeHub } from './changes/change-hub.js';
import { CredentialWatch } from './changes/credential-watch.js';
import {
  DEFAULT_BODY_LIMIT_BYTES,
  DEFAULT_BULK_BODY_LIMIT_BYTES,
  DEFAULT_CHANGE_FEED,
  DEFAULT_CHANGES_RETENTION_MS,
  type ChangeFeedConfig,
} from './config.js';
import { createRequestFrame } from './http/request-frame.js';
import type { RateLimiter } from './rate-limit/rate-limiter.js';
import { routeFallback } from './http/route-fallback.js';
import { createCors } from './http/cors.js';
import { traceRequests } from './http/trace-requests.js';
import type { Tracing } from './tracing/tracing.js';
import type { Authenticator } from './tokens/principal.js';

export interface AppDeps {
  readonly store: Store;
  readonly auth: Authenticator;
  readonly logger: Logger;
  /** Largest request body accepted, in bytes as sent (default: BODY_LIMIT_BYTES's). */
  readonly bodyLimitBytes?: number;
  /** Largest body of POST /plants/batch, in bytes as sent (default: BULK_BODY_LIMIT_BYTES's). */
  readonly bulkBodyLimitBytes?: number;
  /** IDEMPOTENCY_TTL_SECONDS, as the store was opened with it: the served document states it. */
  readonly idempotencyTtlSeconds?: number;
  /** True once shutdown began: /readyz answers 503 from then on. */
  readonly isShuttingDown?: () => boolean;
  /**
   * Per-principal rate limiting of the /plants routes (see rate-limit/rate-limiter.ts); absent: off.
   * main.ts opens it from RATE_LIMIT_* (adapters/open-rate-limiter.ts).
   */
  readonly rateLimiter?: RateLimiter | undefined;
  /** CORS_ORIGINS: the exact origins CORS is on for; absent or empty: off (no Access-Control-* header). */
  readonly corsOrigins?: readonly string[] | undefined;
  /** Prometheus metrics (METRICS_PORT); absent: nothing is counted. */
  readonly metrics?: Metrics | undefined;
  /** OpenTelemetry tracing (OTEL_*); absent: no span, and no cost. */
  readonly tracing?: Tracing | undefined;
  /**
   * The process's change feed (changes/change-hub.ts), which main.ts closes at the start of a
   * shutdown; absent: one made here over `store.changes`.
   */
  readonly changeHub?: ChangeHub | undefined;
  /** CHANGES_* limits; absent: CHANGES_*'s defaults. */
  readonly changes?: Partial<ChangeFeedConfig & { readonly retentionMs: number }> | undefined;
}

/**
 * Builds the Koa app of docs/reference/api.md; never listens (see http/server.ts). Middleware order:
 * the request's SERVER span when tracing is on → the request frame (http/request-frame.ts: the
 * reply held until the turn's reads are over, X-Request-Id, security headers (nosniff, CSP,
 * no-store on /plants), request-head checks (HTTP/1.1 without Host, two Host lines, a fragment in
 * the target → 400; a transfer coding besides chunked → 501), defects → 500, one log line per
 * request) → CORS when configured (preflights answered here, before authentication) → router →
 * fallback (405 with Allow, or a JSON 404), so that a wrong method is answered before authentication.
 */
export const createApp = (deps: AppDeps): Koa<AppState> => {
  const app = new Koa<AppState>({ proxy: false });
  app.silent = true;
  app.on('error', (err: unknown) => deps.logger.error({ err }, 'koa error outside a request'));

  const isShuttingDown = deps.isShuttingDown ?? (() => false);
  const router = new Router<AppState>();
  addHealthRoutes(router, { plants: deps.store.plants, isShuttingDown });
  addOpenApiRoutes(
    router,
    deps.idempotencyTtlSeconds === undefined ? undefined : { idempotencyTtlSeconds: deps.idempotencyTtlSeconds },
  );
  addDocsRoutes(router);
  // Before /plants/:id, which would take `changes` for an id (and refuse it).
  const hub = deps.changeHub ?? new ChangeHub(deps.store.changes);
  const feed = { ...DEFAULT_CHANGE_FEED, ...deps.changes };
  deps.metrics?.changeFeed.watchOpen(() => hub.size);
  addChangeRoutes(router, {
    changes: deps.store.changes,
    hub,
    auth: deps.auth,
    credentials: new CredentialWatch(deps.auth),
    rateLimiter: deps.rateLimiter,
    retentionMs: feed.retentionMs ?? DEFAULT_CHANGES_RETENTION_MS,
    heartbeatMs: feed.heartbeatMs,
    maxBufferBytes: feed.maxBufferBytes,
    maxStreams: feed.maxStreams,
    metrics: deps.metrics?.changeFeed,
  });
  const service = createPlantService(deps.store.plants);
  // One key space for POST /plants and POST /plants/batch: a key in flight on either is in flight.
  const keysInFlight = new KeysInFlight();
  // Before /plants/:id too.
  addPlantBatchRoutes(router, {
    service,
    auth: deps.auth,
    bulkBodyLimitBytes: deps.bulkBodyLimitBytes ?? DEFAULT_BULK_BODY_LIMIT_BYTES,
    rateLimiter: deps.rateLimiter,
    keysInFlight,
    onCommit: () => hub.poke(),
    onArray: deps.metrics === undefined ? undefined : (length) => deps.metrics?.plantArray(length),
  });
  addPlantRoutes(router, {
    service,
    keysInFlight,
    auth: deps.auth,
    bodyLimitBytes: deps.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES,
    rateLimiter: deps.rateLimiter,
    // The feed reads the log at once after this process's own commits.
    onCommit: () => hub.poke(),
  });

  if (deps.tracing !== undefined) app.use(traceRequests(deps.tracing));
  app.use(createRequestFrame(deps.logger, isShuttingDown, deps.metrics));
  if (deps.corsOrigins !== undefined && deps.corsOrigins.length > 0) app.use(createCors(deps.corsOrigins));
  app.use(router.routes() as Koa.Middleware<AppState>);
  app.use(routeFallback);
  return app;
};
