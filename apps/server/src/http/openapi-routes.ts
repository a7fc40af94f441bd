import type Router from '@koa/router';
import { createOpenApiDocument, type OpenApiSettings } from '@plant-store/domain';
import type { AppState } from './context.js';

/**
 * `GET /openapi.json` (no authentication): the OpenAPI document of docs/reference/api.md, stating
 * what `settings` says of this deployment (the idempotency keys' TTL). Written once, at start.
 */
export const addOpenApiRoutes = (router: Router<AppState>, settings?: OpenApiSettings): void => {
  const openApiJson = JSON.stringify(createOpenApiDocument(settings));

  router.get('/openapi.json', (ctx) => {
    ctx.type = 'application/json';
    ctx.body = openApiJson;
  });
};
