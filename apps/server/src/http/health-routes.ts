import type Router from '@koa/router';
import { createOpenApiDocument, type OpenApiSettings } from '@plant-store/domain';
import * as E from 'fp-ts/lib/Either.js';
import type { PlantStore } from '../ports/plant-store.js';
import type { AppState } from './context.js';
import { notReady } from './request-error.js';
import { sendError, sendJson } from './respond.js';

const ok = { status: 'ok' } as const;

export interface HealthRoutesDeps {
  readonly plants: PlantStore;
  readonly isShuttingDown: () => boolean;
  /** What the served document states about this deployment (the idempotency keys' TTL). */
  readonly document?: OpenApiSettings;
}

/** Unauthenticated routes: the OpenAPI document, liveness and readiness. */
export const addHealthRoutes = (
  router: Router<AppState>,
  { plants, isShuttingDown, document }: HealthRoutesDeps,
): void => {
  const openApiJson = JSON.stringify(createOpenApiDocument(document));

  router.get('/openapi.json', (ctx) => {
    ctx.type = 'application/json';
    ctx.body = openApiJson;
  });

  router.get('/healthz', (ctx) => {
    sendJson(ctx, ok);
  });

  router.get('/readyz', async (ctx) => {
    if (isShuttingDown()) return sendError(ctx, notReady('shutting down'));
    const answered = await plants.ping()();
    if (E.isLeft(answered)) {
      ctx.state.cause = answered.left.cause;
      return sendError(ctx, notReady('the store does not answer'));
    }
    if (isShuttingDown()) return sendError(ctx, notReady('shutting down'));
    sendJson(ctx, ok);
  });
};
