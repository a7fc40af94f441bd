import * as E from 'fp-ts/lib/Either.js';
import type { TaskEither } from 'fp-ts/lib/TaskEither.js';
import type { StoreError } from '../ports/plant-store.js';

/** Keys one purge step looks at: small, so a step holds the writers only briefly. */
export const PURGE_BATCH = 500;

/** Steps per interval at most, so that a huge store's purge costs a bounded share of the time. */
export const MAX_PURGE_STEPS = 200;

export interface PeriodicPurge {
  /** Stops the timer and waits for a step in progress. */
  stop(): Promise<void>;
}

/**
 * A background purge: every `intervalMs`, steps of PURGE_BATCH rows until the store says there
 * is no more (or MAX_PURGE_STEPS), each step a write of its own (requests' writes go in between,
 * never behind a long delete). A failed step is logged (`what` names it) and retried at the next
 * interval.
 */
export const startPurge = (
  step: (limit: number) => TaskEither<StoreError, { readonly more: boolean }>,
  options: {
    readonly what: string;
    readonly intervalMs: number;
    readonly logger?: { warn(obj: object, msg: string): void };
  },
): PeriodicPurge => {
  let stopped = false;
  let running: Promise<void> | undefined;
  const run = async (): Promise<void> => {
    for (let n = 0; n < MAX_PURGE_STEPS && !stopped; n++) {
      const purged = await step(PURGE_BATCH)();
      if (E.isLeft(purged)) {
        options.logger?.warn({ err: purged.left.cause }, `purging ${options.what} failed; trying again later`);
        return;
      }
      if (!purged.right.more) return;
    }
  };
  const timer = setInterval(() => {
    running ??= run().finally(() => {
      running = undefined;
    });
  }, options.intervalMs);
  timer.unref();
  return {
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
};
