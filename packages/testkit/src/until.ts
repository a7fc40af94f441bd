export interface UntilOptions {
  /** How often `check` runs; default 25 ms. */
  readonly everyMs?: number;
  /** What the timeout's message adds after `what` (how far it got), read when it times out. */
  readonly detail?: () => string;
}

/**
 * The one wait of the workspace's tests for what a server or a process does on its own time (a
 * delivery, an index catching up, a port appearing): runs `check` (it may be async) every
 * `everyMs` until it gives something other than `false` or `undefined`, and resolves with that
 * (so `true` for a yes/no check, the value for a lookup). Rejects naming `what` (and `detail()`)
 * after `timeoutMs`; an error `check` throws ends the wait at once.
 */
export const until = async <T>(
  what: string,
  check: () => T | false | undefined | Promise<T | false | undefined>,
  timeoutMs = 10_000,
  { everyMs = 25, detail }: UntilOptions = {},
): Promise<Exclude<T, false | undefined>> => {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== false && value !== undefined) return value as Exclude<T, false | undefined>;
    if (Date.now() > end) {
      const more = detail?.() ?? '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${more === '' ? '' : `: ${more}`}`);
    }
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
};
