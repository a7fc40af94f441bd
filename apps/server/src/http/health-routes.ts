import type Router from '@koa/router';
import * as E from 'fp-ts/lib/Either.js';
import type { PlantStore } from '../ports/plant-store.js';
import type { AppState } from './context.js';
import { notReady } from './request-error.js';
import { sendError, sendJson } from './respond.js';

const ok = { status: 'ok' } as const;

export interface HealthRoutesDeps {
  readonly plants: PlantStore;
  readonly isShuttingDown: () => boolean;
}

/** Unauthenticated routes: liveness and readiness. */
export const addHealthRoutes = (router: Router<AppState>, { plants, isShuttingDown }: HealthRoutesDeps): void => {
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
