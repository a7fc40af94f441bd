/**
 * Resolves once `check()` holds (it may be async), looking every 25 ms; rejects naming `what`
 * after `timeoutMs`. For what a server does on its own time (a delivery, an index catching up).
 */
export const until = async (
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs = 10_000,
): Promise<void> => {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
};
