import type { AppContext } from './context.js';
import { toHttpError, type AppError } from './to-http-error.js';

/** What Koa's body setter would make the Content-Type of an object body. */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * Sets a response header on Node's response directly. Koa's `ctx.set` builds arrays and normalises
 * the value on every call (it shows in a `pnpm bench` profile at one connection); the names and
 * values set here are ours, fixed and already valid. Only while the handler runs: the headers are
 * never sent before it returns.
 */
export const setHeader = (ctx: AppContext, name: string, value: string): void => {
  ctx.res.setHeader(name, value);
};

/**
 * A JSON body, as `ctx.body = value` makes it (Koa serialises it and sets Content-Length), with the
 * Content-Type set first, so that Koa's body setter skips its media-type lookup.
 */
export const sendJson = (ctx: AppContext, value: unknown): void => {
  ctx.res.setHeader('Content-Type', JSON_CONTENT_TYPE);
  ctx.body = value;
};

/** A JSON body already written as text (the change log keeps each change's JSON), with the Content-Type that makes it JSON. */
export const sendJsonText = (ctx: AppContext, text: string): void => {
  ctx.res.setHeader('Content-Type', JSON_CONTENT_TYPE);
  ctx.body = text;
};

/** Answers `error` as `{error: <status>, message}` with its headers. The only way errors reach clients. */
export const sendError = (ctx: AppContext, error: AppError): void => {
  const { status, message, headers } = toHttpError(error);
  if (status >= 500 && 'cause' in error) ctx.state.cause = error.cause;
  ctx.state.errorTag = error._tag;
  ctx.status = status;
  if (headers !== undefined) for (const name in headers) setHeader(ctx, name, headers[name] as string);
  sendJson(ctx, { error: status, message });
};
