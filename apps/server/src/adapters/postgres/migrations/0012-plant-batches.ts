import type { PostgresMigration } from './postgres-migration.js';
import { batchFunctionV1 } from './batch-function-v1.js';
import type { WriteFunctionColumn } from './write-function-v3.js';

/**
 * The plant's columns as this migration knows them (a released migration never changes): what
 * plant_store_create_batch_v1 is made for. PLANT_BATCH_FUNCTION (index.ts) names the function the
 * server calls and its columns; plant-columns.test.ts fails when they differ from the codec's.
 */
export const MIGRATION_12_COLUMNS: readonly WriteFunctionColumn[] = [
  { field: 'name', kind: 'text', type: 'text' },
  { field: 'tag', kind: 'text', type: 'text' },
];

export const migration0012: PostgresMigration = {
  version: 12,
  name: 'arrays of creates in plant_store_create_batch_v1',
  // Expand only: a new function (batch-function-v1.ts) beside the write functions and the change
  // log's trigger, which stay as released; the release before never calls it and keeps working on
  // the database during a rolling upgrade. An array's key is an ordinary idempotency_keys row
  // (idempotency/batch-request.ts), so the tables are unchanged.
  sql: `
${batchFunctionV1('plant_store_create_batch_v1', MIGRATION_12_COLUMNS)}    `,
};
