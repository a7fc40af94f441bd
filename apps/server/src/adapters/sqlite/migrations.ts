import { fold } from '@plant-store/domain';
import type BetterSqlite3 from 'better-sqlite3';

/** One schema change. Versions only grow; an applied migration is never edited, only followed. */
export interface SqliteMigration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

/**
 * The change log's triggers (migration 8), also dropped and made again by `migrate`, which copies
 * a store's changes as they are instead of logging its copy of the plants as new ones.
 */
export const changeTriggers = `
      CREATE TRIGGER plant_changes_insert AFTER INSERT ON plants BEGIN
        UPDATE plant_change_state SET last_seq = last_seq + 1;
        INSERT INTO plant_changes (seq, type, plant_id, name, tag, version, at)
          SELECT last_seq, 'plant.created', new.id, new.name, new.tag, new.version,
                 CAST(round((julianday('now') - 2440587.5) * 86400000) AS INTEGER)
            FROM plant_change_state;
      END;
      CREATE TRIGGER plant_changes_update AFTER UPDATE OF name, tag ON plants
        WHEN new.name IS NOT old.name OR new.tag IS NOT old.tag BEGIN
        UPDATE plant_change_state SET last_seq = last_seq + 1;
        INSERT INTO plant_changes (seq, type, plant_id, name, tag, version, at)
          SELECT last_seq, 'plant.updated', new.id, new.name, new.tag, new.version,
                 CAST(round((julianday('now') - 2440587.5) * 86400000) AS INTEGER)
            FROM plant_change_state;
      END;
      CREATE TRIGGER plant_changes_delete AFTER DELETE ON plants BEGIN
        UPDATE plant_change_state SET last_seq = last_seq + 1;
        INSERT INTO plant_changes (seq, type, plant_id, at)
          SELECT last_seq, 'plant.deleted', old.id, CAST(round((julianday('now') - 2440587.5) * 86400000) AS INTEGER)
            FROM plant_change_state;
      END;`;

/** The change log's triggers, by name (to drop them). */
export const CHANGE_TRIGGERS = ['plant_changes_insert', 'plant_changes_update', 'plant_changes_delete'] as const;

/**
 * The schema, oldest first. Ids are INTEGER PRIMARY KEY (the rowid: seeks by id and `id > ?`
 * ranges use the table's own b-tree). `plant_ids` keeps the high-water mark of every id ever
 * stored, so server-assigned ids never collide with client-chosen ones nor reuse deleted ones.
 * Timestamps are milliseconds since the epoch; token scopes are space-separated.
 */
export const SQLITE_MIGRATIONS: readonly SqliteMigration[] = [
  {
    version: 1,
    name: 'plants and tokens',
    sql: `
      CREATE TABLE plants (
        id   INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        tag  TEXT
      ) STRICT;
      CREATE TABLE plant_ids (
        singleton  INTEGER PRIMARY KEY CHECK (singleton = 1),
        high_water INTEGER NOT NULL,
        gap_cursor INTEGER NOT NULL
      ) STRICT;
      INSERT INTO plant_ids (singleton, high_water, gap_cursor) VALUES (1, 0, 0);
      CREATE TABLE tokens (
        id         TEXT PRIMARY KEY,
        name       TEXT NOT NULL UNIQUE,
        scopes     TEXT NOT NULL,
        hash       BLOB NOT NULL UNIQUE,
        created_at INTEGER NOT NULL,
        expires_at INTEGER,
        revoked_at INTEGER
      ) STRICT;
    `,
  },
  {
    version: 2,
    name: 'idempotency keys',
    // One row per (owner, key): the outcome a keyed create saved, in the transaction of the
    // plant. `request` is the create's canonical JSON (idempotency/fingerprint.ts): what a later
    // request must equal, and the name and tag of the plant a 201 created (`plant_id`); a 409
    // names the taken id. Rows past `expires_at` (ms) are ignored, overwritten by the key's next
    // use, and purged by a sweep in key order. WITHOUT ROWID and no index on `expires_at`: one
    // b-tree to write per keyed create (each b-tree adds to the cost of every create; the sweep
    // reads the table instead, a few hundred keys a step).
    sql: `
      CREATE TABLE idempotency_keys (
        owner       TEXT NOT NULL,
        key         TEXT NOT NULL,
        request     TEXT NOT NULL,
        status      INTEGER NOT NULL CHECK (status IN (201, 409)),
        plant_id    INTEGER NOT NULL,
        expires_at  INTEGER NOT NULL,
        PRIMARY KEY (owner, key)
      ) STRICT, WITHOUT ROWID;
    `,
  },
  {
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
  },
  {
    version: 4,
    name: 'plant versions and the tag index',
    // The version an ETag is made of: `plant_ids.revision` is a store-wide counter, advanced in
    // the transaction of every create and of every update that changes a plant, whose new value
    // the plant takes. A value is never given twice, so a deleted and re-created id never gets
    // an ETag it had before. Plants stored before this migration have version 0 (the counter
    // starts above it); a key saved before it replays its 201 with version 0, the plant's
    // version at its creation as this migration sees it. Versions are now reserved in blocks, and
    // the column holds the end of the block reserved last (plant-ids.ts, VERSION_BLOCK): every value handed out
    // is at or below it, so counting on above it after a restart still never gives one twice.
    // The tag filter pages through (tag, id), partial so that untagged plants cost nothing.
    sql: `
      ALTER TABLE plants ADD COLUMN version INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE plant_ids ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE idempotency_keys ADD COLUMN version INTEGER NOT NULL DEFAULT 0;
      CREATE INDEX plants_tag ON plants (tag, id) WHERE tag IS NOT NULL;
    `,
  },
  {
    version: 5,
    name: 'folded names, the name order and the search index',
    // `name_folded` is the domain's fold of the name (NFKC, then lower case), written by the
    // server in the statement that writes the name; here the existing rows get it through
    // plant_store_fold, the same function registered for the migration. Name order pages
    // through (name_folded, id), forwards and backwards, and with a tag through
    // (tag, name_folded, id), partial like plants_tag. Substring search goes through an FTS5
    // index of the folded names with the trigram tokenizer (case_sensitive 1: the text is folded
    // already, and no other rule of SQLite's may take part), external content so the names are
    // not stored twice, kept by triggers so every writer keeps it, whatever statement it uses.
    // An earlier release writing to this file (a rollback) knows nothing of the folded name: its
    // inserts leave '' (never a folding: names are not empty), and plants_name_unfolded sets ''
    // where its renames would leave a stale one. A rename of ours that keeps the folding trips
    // that trigger too, and writes the folding back in the same transaction; refoldSqlite folds
    // the rest when this release opens the file.
    sql: `
      ALTER TABLE plants ADD COLUMN name_folded TEXT NOT NULL DEFAULT '';
      UPDATE plants SET name_folded = plant_store_fold(name);
      CREATE INDEX plants_name ON plants (name_folded, id);
      CREATE INDEX plants_tag_name ON plants (tag, name_folded, id) WHERE tag IS NOT NULL;
      CREATE VIRTUAL TABLE plants_search USING fts5(
        name_folded, content = 'plants', content_rowid = 'id', tokenize = 'trigram case_sensitive 1'
      );
      INSERT INTO plants_search (plants_search) VALUES ('rebuild');
      CREATE TRIGGER plants_search_insert AFTER INSERT ON plants BEGIN
        INSERT INTO plants_search (rowid, name_folded) VALUES (new.id, new.name_folded);
      END;
      CREATE TRIGGER plants_search_delete AFTER DELETE ON plants BEGIN
        INSERT INTO plants_search (plants_search, rowid, name_folded) VALUES ('delete', old.id, old.name_folded);
      END;
      CREATE TRIGGER plants_name_unfolded AFTER UPDATE OF name ON plants
        WHEN new.name IS NOT old.name AND new.name_folded IS old.name_folded BEGIN
        UPDATE plants SET name_folded = '' WHERE id = new.id;
      END;
      CREATE TRIGGER plants_search_update AFTER UPDATE OF name_folded ON plants
        WHEN old.name_folded IS NOT new.name_folded BEGIN
        INSERT INTO plants_search (plants_search, rowid, name_folded) VALUES ('delete', old.id, old.name_folded);
        INSERT INTO plants_search (rowid, name_folded) VALUES (new.id, new.name_folded);
      END;
    `,
  },
  {
    version: 6,
    name: 'the trace context of each event, for its deliveries',
    // The W3C traceparent and tracestate of the request whose change emitted the event, written
    // with it when tracing is on, so that each attempt continues that request's trace (after a
    // restart too). NULL: the change was not traced. A release before this one writes NULL.
    sql: `
      ALTER TABLE webhook_deliveries ADD COLUMN trace_parent TEXT;
      ALTER TABLE webhook_deliveries ADD COLUMN trace_state TEXT;
    `,
  },
  {
    version: 7,
    name: 'the search index kept behind the writes',
    // FTS5 writes a new segment of its index at every commit that changed it, which made the
    // search index most of what a lone create cost. A plant written (or renamed) is now only
    // listed in plants_search_pending, in its own transaction, and the store adds the pending
    // plants to plants_search in batches (search-index.ts); a search reads the index and the
    // pending plants together, so nothing written is missing from it meanwhile. The two are
    // disjoint: a plant is in the index or pending, never both. The triggers keep that for every
    // writer, an earlier release's included (it knows nothing of the table); such a release's
    // searches read the index alone, so what it writes is found once this release runs again.
    sql: `
      CREATE TABLE plants_search_pending (id INTEGER PRIMARY KEY);
      DROP TRIGGER plants_search_insert;
      CREATE TRIGGER plants_search_insert AFTER INSERT ON plants BEGIN
        INSERT OR IGNORE INTO plants_search_pending (id) VALUES (new.id);
      END;
      DROP TRIGGER plants_search_delete;
      CREATE TRIGGER plants_search_delete AFTER DELETE ON plants BEGIN
        INSERT INTO plants_search (plants_search, rowid, name_folded)
          SELECT 'delete', old.id, old.name_folded
          WHERE NOT EXISTS (SELECT 1 FROM plants_search_pending WHERE id = old.id);
        DELETE FROM plants_search_pending WHERE id = old.id;
      END;
      DROP TRIGGER plants_search_update;
      CREATE TRIGGER plants_search_update AFTER UPDATE OF name_folded ON plants
        WHEN old.name_folded IS NOT new.name_folded BEGIN
        INSERT INTO plants_search (plants_search, rowid, name_folded)
          SELECT 'delete', old.id, old.name_folded
          WHERE NOT EXISTS (SELECT 1 FROM plants_search_pending WHERE id = old.id);
        INSERT OR IGNORE INTO plants_search_pending (id) VALUES (new.id);
      END;
    `,
  },
  {
    version: 8,
    name: 'the change log',
    // Every committed change of a plant, numbered in commit order over the whole file
    // (GET /plants/changes; docs/explanation/storage.md, "The change log"). Triggers fill it, so
    // every writer does: this release, an earlier one (a rollback), the data commands. SQLite has
    // one writer at a time, so a number drawn in the write's transaction is in commit order.
    // `last_seq` is the newest number ever given (kept when the changes are forgotten), and
    // `forgotten_through` the newest number forgotten (the retention): a reader behind it has
    // missed changes. A rename that keeps name and tag (the refold of plants_name_unfolded) is
    // not a change; `at` is the commit time in milliseconds.
    sql: `
      CREATE TABLE plant_change_state (
        singleton         INTEGER PRIMARY KEY CHECK (singleton = 1),
        last_seq          INTEGER NOT NULL,
        forgotten_through INTEGER NOT NULL
      ) STRICT;
      INSERT INTO plant_change_state (singleton, last_seq, forgotten_through) VALUES (1, 0, 0);
      CREATE TABLE plant_changes (
        seq      INTEGER PRIMARY KEY,
        type     TEXT NOT NULL,
        plant_id INTEGER NOT NULL,
        name     TEXT,
        tag      TEXT,
        version  INTEGER,
        at       INTEGER NOT NULL
      ) STRICT;
      ${changeTriggers}
    `,
  },
];

/**
 * Applies every migration not yet recorded in `schema_migrations`, each in its own
 * `BEGIN IMMEDIATE` transaction (the write lock makes two processes opening one file at once
 * apply each migration exactly once). Returns the versions applied now.
 */
export const migrateSqlite = (
  db: BetterSqlite3.Database,
  migrations: readonly SqliteMigration[] = SQLITE_MIGRATIONS,
): readonly number[] => {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version    INTEGER PRIMARY KEY,
    name       TEXT NOT NULL,
    applied_at INTEGER NOT NULL
  ) STRICT`);
  const isApplied = db.prepare<[number], { version: number }>(
    'SELECT version FROM schema_migrations WHERE version = ?',
  );
  const record = db.prepare<[number, string, number]>(
    'INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)',
  );
  // For migrations that fold names already stored (the server folds the ones it writes).
  db.function('plant_store_fold', { deterministic: true }, (name: unknown) => fold(String(name)));
  const applied: number[] = [];
  for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
    // Checked once without a lock (an up-to-date file takes no write lock at open), and again
    // under it, in case another process applied it in between.
    if (isApplied.get(migration.version) !== undefined) continue;
    db.transaction(() => {
      if (isApplied.get(migration.version) !== undefined) return;
      db.exec(migration.sql);
      record.run(migration.version, migration.name, Date.now());
      applied.push(migration.version);
    }).immediate();
  }
  return applied;
};

/**
 * Folds the names an earlier release wrote to this file after this one had upgraded it (their
 * folded name is ''; see migration 5). Returns how many it folded.
 */
export const refoldSqlite = (db: BetterSqlite3.Database): number => {
  const unfolded = db.prepare<[], { id: number; name: string }>("SELECT id, name FROM plants WHERE name_folded = ''");
  // Through plants_name: a seek, and no write lock unless there is something to fold.
  if (db.prepare("SELECT 1 FROM plants WHERE name_folded = '' LIMIT 1").get() === undefined) return 0;
  const write = db.prepare<[string, number]>('UPDATE plants SET name_folded = ? WHERE id = ?');
  return db
    .transaction(() => {
      let folded = 0;
      for (const { id, name } of unfolded.all()) folded += write.run(fold(name), id).changes;
      return folded;
    })
    .immediate();
};
