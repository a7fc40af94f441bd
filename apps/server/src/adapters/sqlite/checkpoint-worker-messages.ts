import * as t from 'io-ts';

/**
 * What the WAL checkpoint thread (checkpoint-worker-main.ts) tells the store's thread, which
 * decodes it: that it started, that it could not restart the WAL for 100 ticks in a row, that a
 * checkpoint failed, or how a restart the store asked for (while it held its writes) went.
 * Nothing else when all is well.
 */
export const CheckpointReport = t.union([
  t.type({ type: t.literal('ready') }),
  t.type({
    type: t.literal('busy'),
    mode: t.keyof({ RESTART: null, TRUNCATE: null }),
    walBytes: t.number,
    log: t.number,
    checkpointed: t.number,
  }),
  t.type({ type: t.literal('error'), message: t.string, code: t.union([t.string, t.undefined]) }),
  t.type({ type: t.literal('restarted'), restarted: t.boolean, walBytes: t.number }),
]);
export type CheckpointReport = t.TypeOf<typeof CheckpointReport>;
