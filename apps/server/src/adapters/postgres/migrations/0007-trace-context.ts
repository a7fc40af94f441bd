import type { PostgresMigration } from './postgres-migration.js';
import { writeFunction } from './write-function.js';

export const migration0007: PostgresMigration = {
  version: 7,
  name: 'the trace context of each event, for its deliveries',
  // The W3C traceparent and tracestate of the request whose change emitted the event, written
  // with it when tracing is on, so that each attempt continues that request's trace (after a
  // restart too). NULL: the change was not traced; the release before writes NULL (expand only:
  // nothing it reads or calls changes shape).
  sql: `
      ALTER TABLE webhook_deliveries ADD COLUMN trace_parent text, ADD COLUMN trace_state text;
${writeFunction(true)}    `,
};
