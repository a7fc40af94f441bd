import type { SqliteMigration } from './sqlite-migration.js';

export const migration0007: SqliteMigration = {
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
};
