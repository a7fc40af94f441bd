import type { SqliteMigration } from './sqlite-migration.js';

export const migration0003: SqliteMigration = {
  version: 3,
  name: 'webhook endpoints, deliveries and attempts',
  // The outbox is the deliveries table: a committed change writes one row per subscribed
  // endpoint, with the event's id, type and payload (serialised once), in the change's own
  // transaction. Nothing is written without subscribers. A pending delivery is due at
  // next_attempt_at; a claim moves that to the end of its lease and names the holder, so a
  // crashed holder's deliveries fall due again by themselves. The partial index holds only
  // pending rows (what the dispatcher looks for); ended ones are purged by a sweep in id order.
  // No foreign keys and no index on endpoint_id: each b-tree and each parent lookup is paid by
  // every create while an endpoint is subscribed, on top of the delivery row, itself a large
  // part of the store's cost of a create. Removing an endpoint, which is rare, deletes its
  // deliveries and their attempts itself, with a scan.
  // Events: a space-separated list of types, NULL for every type (types added later included).
  sql: `
      CREATE TABLE webhook_endpoints (
        id              TEXT PRIMARY KEY,
        url             TEXT NOT NULL,
        events          TEXT,
        secret          TEXT NOT NULL,
        previous_secret TEXT,
        rotated_at      INTEGER,
        enabled         INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
        disabled_reason TEXT,
        created_at      INTEGER NOT NULL
      ) STRICT;
      CREATE TABLE webhook_deliveries (
        id              INTEGER PRIMARY KEY,
        event_id        TEXT NOT NULL,
        event_type      TEXT NOT NULL,
        body            TEXT NOT NULL,
        endpoint_id     TEXT NOT NULL,
        status          TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
        attempts        INTEGER NOT NULL DEFAULT 0,
        total_attempts  INTEGER NOT NULL DEFAULT 0,
        next_attempt_at INTEGER NOT NULL,
        held_by         TEXT,
        last_status     INTEGER,
        last_error      TEXT,
        created_at      INTEGER NOT NULL,
        ended_at        INTEGER
      ) STRICT;
      CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
      CREATE TABLE webhook_attempts (
        delivery_id INTEGER NOT NULL,
        n           INTEGER NOT NULL,
        started_at  INTEGER NOT NULL,
        duration_ms INTEGER NOT NULL,
        status      INTEGER,
        error       TEXT,
        PRIMARY KEY (delivery_id, n)
      ) STRICT, WITHOUT ROWID;
    `,
};
