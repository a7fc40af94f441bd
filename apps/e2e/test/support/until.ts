/** Resolves once `check()` holds, looking every 25 ms; rejects naming `what` after `timeoutMs`. */
export const until = async (what: string, check: () => boolean, timeoutMs = 10_000): Promise<void> => {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
};
