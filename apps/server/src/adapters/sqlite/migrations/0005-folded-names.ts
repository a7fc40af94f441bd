import type { SqliteMigration } from './sqlite-migration.js';

export const migration0005: SqliteMigration = {
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
};
