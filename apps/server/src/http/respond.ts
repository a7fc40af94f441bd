import type { AppContext } from './context.js';
import { toHttpError, type AppError } from './to-http-error.js';

/** Answers `error` as `{error: <status>, message}` with its headers. The only way errors reach clients. */
export const sendError = (ctx: AppContext, error: AppError): void => {
  const { status, message, headers } = toHttpError(error);
  if (status >= 500 && 'cause' in error) ctx.state.cause = error.cause;
  ctx.state.errorTag = error._tag;
  ctx.status = status;
  if (headers !== undefined) for (const name in headers) ctx.set(name, headers[name] as string);
  ctx.body = { error: status, message };
};
