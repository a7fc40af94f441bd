/**
 * A property test's fast-check seed from the environment variable `name`: a number replays a run,
 * `random` draws a new one (fast-check prints it with a failure), unset is `fallback`, so CI runs
 * the same cases every time.
 */
export const seedFrom = (name: string, fallback: number): number => {
  const setting = process.env[name] ?? String(fallback);
  return setting === 'random' ? Math.floor(Math.random() * 2 ** 31) : Number(setting);
};
