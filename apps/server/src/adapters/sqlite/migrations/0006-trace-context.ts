import type { SqliteMigration } from './sqlite-migration.js';

export const migration0006: SqliteMigration = {
  version: 6,
  name: 'the trace context of each event, for its deliveries',
  // The W3C traceparent and tracestate of the request whose change emitted the event, written
  // with it when tracing is on, so that each attempt continues that request's trace (after a
  // restart too). NULL: the change was not traced. A release before this one writes NULL.
  sql: `
      ALTER TABLE webhook_deliveries ADD COLUMN trace_parent TEXT;
      ALTER TABLE webhook_deliveries ADD COLUMN trace_state TEXT;
    `,
};
