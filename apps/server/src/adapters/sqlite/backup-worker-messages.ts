import * as t from 'io-ts';

/**
 * What the backup thread (backup-worker-main.ts) answers, once, decoded by backup.ts: the copy
 * made, with its `integrity_check` verdict ('ok' or the first problem) and its count of plants,
 * or why it could not be made.
 */
export const BackupOutcome = t.union([
  t.type({ type: t.literal('done'), integrity: t.string, plants: t.number }),
  t.type({ type: t.literal('error'), message: t.string }),
]);
export type BackupOutcome = t.TypeOf<typeof BackupOutcome>;
