import type Router from '@koa/router';
import { DOCS_CSP, loadDocsAssets } from '../ops/docs-page.js';
import type { AppState } from './context.js';

/**
 * `GET /docs` (no authentication): the API reference, and the files it loads, all from this
 * server with their own Content-Security-Policy (replacing the JSON one of every other answer).
 * The page may be cached only after revalidation; the versioned assets for an hour.
 */
export const addDocsRoutes = (router: Router<AppState>): void => {
  for (const [path, asset] of loadDocsAssets()) {
    router.get(path, (ctx) => {
      ctx.set('Content-Security-Policy', DOCS_CSP);
      ctx.set('Cache-Control', path === '/docs' ? 'no-cache' : 'public, max-age=3600');
      ctx.type = asset.type;
      ctx.body = asset.body;
    });
  }
};
