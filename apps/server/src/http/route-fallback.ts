import type { AppMiddleware } from './context.js';
import { methodNotAllowed, routeNotFound } from './request-error.js';
import { sendError } from './respond.js';
import { routeTemplate } from './route-template.js';

interface Layer {
  readonly path: string | RegExp;
  readonly methods: readonly string[];
}

const methodOrder = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/** The `Allow` value of the routes a path matched: their methods and OPTIONS, in a fixed order. */
const allowOf = (layers: readonly Layer[]): string => {
  const methods = new Set(['OPTIONS']);
  for (const layer of layers) for (const method of layer.methods) methods.add(method);
  return [...methods].sort((a, b) => methodOrder.indexOf(a) - methodOrder.indexOf(b)).join(', ');
};

/**
 * Runs only when the router matched no route for path + method, so before any authentication:
 * a path the router knows with another method → 405 with `Allow` (OPTIONS → 204 with `Allow`);
 * an unknown path → a JSON 404.
 */
export const routeFallback: AppMiddleware = (ctx) => {
  const layers = ((ctx as { matched?: readonly Layer[] }).matched ?? []).filter((layer) => layer.methods.length > 0);
  const first = layers[0];
  if (first === undefined) {
    // An authority-form target (`CONNECT example.com:443`) has no path: name the target as sent.
    const target = (ctx.path as string | null) ?? ctx.originalUrl;
    const path = target.length > 100 ? `${target.slice(0, 100)}…` : target;
    return sendError(ctx, routeNotFound(ctx.method, path));
  }
  // Only the routes of the first path matched: /plants/changes is registered before, and also
  // matches, /plants/:id, whose methods are not its own.
  const allow = allowOf(layers.filter((layer) => layer.path === first.path));
  if (ctx.method === 'OPTIONS') {
    ctx.status = 204;
    ctx.set('Allow', allow);
    return;
  }
  return sendError(ctx, methodNotAllowed(ctx.method, routeTemplate(String(first.path)), allow));
};
