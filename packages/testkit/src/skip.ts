/**
 * The rule for tests that need something a machine may lack (a server, a binary, root): outside CI
 * they are skipped with one line saying why; with `CI=true` they fail with that reason instead, so
 * CI cannot pass without having run them.
 */
import { describe, it, type TestContext } from 'vitest';

/** Whether this is CI (`CI=true`), where a missing prerequisite fails its tests. */
export const inCi = (): boolean => process.env['CI'] === 'true';

const noticed = new Set<string>();

/**
 * `describe` when `missing` is undefined. Otherwise, outside CI the block is skipped and one line
 * (once per `what`) says why; with `CI=true` it holds one test that fails with the reason.
 */
export const describeUnlessMissing = (
  what: string,
  missing: string | undefined,
  name: string,
  fn: () => void,
): void => {
  if (missing === undefined) {
    describe(name, fn);
  } else if (inCi()) {
    describe(name, () => {
      it(`needs ${what} (CI=true, so this fails instead of skipping)`, () => {
        throw new Error(missing);
      });
    });
  } else {
    if (!noticed.has(what)) {
      noticed.add(what);
      console.log(`${what} tests skipped: ${missing} (CI=true fails instead)`);
    }
    describe.skip(name, fn);
  }
};

/**
 * For a test that finds out only while running that it cannot run here: outside CI it is skipped
 * (one line, once per `what` and reason, says why); with `CI=true` it fails with the reason.
 */
export const skipOrFail = (ctx: Pick<TestContext, 'skip'>, what: string, reason: string): never => {
  if (inCi()) throw new Error(`${what}: ${reason} (CI=true, so this fails instead of skipping)`);
  const line = `${what} skipped: ${reason} (CI=true fails instead)`;
  if (!noticed.has(line)) {
    noticed.add(line);
    console.log(line);
  }
  return ctx.skip(reason);
};
