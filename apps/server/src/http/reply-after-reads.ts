let pending: Promise<void> | undefined;

/**
 * Settles in the check phase of this event-loop turn: after every socket ready in it was read.
 * The request frame (request-frame.ts) takes it first and awaits it last, so no response leaves
 * before the check phase (`setImmediate`) of the turn its request was read in: the event loop reads
 * every socket that was ready before it writes, instead of writing in the middle of those reads. On
 * loopback each write wakes the client, whose next request then lands while we are still reading;
 * keeping reads and writes in runs, as the bench's ceiling does, serves reads markedly faster
 * (`pnpm bench`, side by side with the build before). A response made later than that (a write:
 * group commit runs on `setImmediate`) finds the promise settled and goes out at once. One
 * `setImmediate` serves every request of a turn.
 */
export const endOfReads = (): Promise<void> =>
  (pending ??= new Promise((resolve) =>
    setImmediate(() => {
      pending = undefined;
      resolve();
    }),
  ));
