import type { AppMiddleware } from './context.js';

let pending: Promise<void> | undefined;

/** Settles in the check phase of this event-loop turn: after every socket ready in it was read. */
const endOfReads = (): Promise<void> =>
  (pending ??= new Promise((resolve) =>
    setImmediate(() => {
      pending = undefined;
      resolve();
    }),
  ));

/**
 * Outermost middleware: no response leaves before the check phase (`setImmediate`) of the turn its
 * request was read in, so the event loop reads every socket that was ready before it writes,
 * instead of writing in the middle of those reads. On loopback each write wakes the client, whose
 * next request then lands while we are still reading; keeping reads and writes in runs, as the
 * bench's ceiling does, serves reads markedly faster (`pnpm bench`, side by side with the build
 * before). A response made later than that (a write: group commit runs on `setImmediate`) finds the
 * promise settled and goes out at once. One `setImmediate` serves every request of a turn.
 */
export const replyAfterReads: AppMiddleware = async (_ctx, next) => {
  const reads = endOfReads();
  await next();
  await reads;
};
