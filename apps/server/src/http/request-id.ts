import { randomUUID } from 'node:crypto';
import type { AppMiddleware } from './context.js';

const acceptable = /^[A-Za-z0-9._:-]{1,128}$/;

/** The caller's `X-Request-Id` when it is acceptable, else a fresh one. */
export const chooseRequestId = (given: string | string[] | undefined): string =>
  typeof given === 'string' && acceptable.test(given) ? given : randomUUID();

/**
 * Outermost middleware: every response carries `X-Request-Id`, and so does the request's log line.
 * Set on Node's response directly (see respond.ts setHeader): the id is a UUID or matched `acceptable`.
 */
export const requestIdMiddleware: AppMiddleware = (ctx, next) => {
  const id = chooseRequestId(ctx.req.headers['x-request-id']);
  ctx.state.requestId = id;
  ctx.res.setHeader('X-Request-Id', id);
  return next();
};
