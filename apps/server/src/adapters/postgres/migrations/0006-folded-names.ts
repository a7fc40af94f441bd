import type { PostgresMigration } from './postgres-migration.js';
import { writeFunction } from './write-function.js';

export const migration0006: PostgresMigration = {
  version: 6,
  name: 'folded names, the name order and the search index; plant_store_write_v2 writes folded names',
  // `name_folded` is the domain's fold of the name (NFKC, then lower case), which only the
  // server computes: it writes it in the statement that writes the name. Rows stored before
  // this migration, and rows an instance of the previous release writes during a rolling
  // upgrade, have NULL there until an instance of this release folds them at start
  // (backfillFoldedNames); plants_unfolded finds them without a scan. COLLATE "C": code-point
  // order, whatever the database's collation. Name order pages through plants_name, forwards
  // and backwards, and with a tag through plants_tag_name. Substring search: a pg_trgm GIN index serves `name_folded LIKE '%…%'`. The
  // extension is created in `public`, once per database, so a schema's removal never takes it
  // away from the others; without the privilege to create it (or where it is not installed),
  // a warning is raised, no index is made, and searches read the table instead.
  // plant_store_write_v2 is replaced in place, same signature: a write that carries
  // name_folded stores it; one of the previous release (which does not) stores NULL on create
  // and on rename, never a stale folding.
  sql: `
      ALTER TABLE plants ADD COLUMN name_folded text COLLATE "C";
      CREATE INDEX plants_name ON plants (name_folded, id);
      CREATE INDEX plants_tag_name ON plants (tag, name_folded, id) WHERE tag IS NOT NULL;
      CREATE INDEX plants_unfolded ON plants (id) WHERE name_folded IS NULL;
      -- The exact counts Prefer: count=exact answers without a scan: one row per tag and one, the
      -- empty tag (never a real one), for every plant. Kept by statement-level triggers, so every
      -- writer keeps them, whatever statement it uses, an instance of the previous release
      -- included; a statement's rows are counted once, at its end, in its transaction. Every
      -- statement that changes plants first takes the writers' lock (plant_id_counter), so the
      -- few counter rows add no waiting; rows are written in tag order all the same. A tag whose
      -- plants are all gone keeps its row, at 0.
      CREATE TABLE plant_counts (tag text COLLATE "C" PRIMARY KEY, n int8 NOT NULL);
      INSERT INTO plant_counts (tag, n) SELECT '', count(*) FROM plants;
      INSERT INTO plant_counts (tag, n) SELECT tag, count(*) FROM plants WHERE tag IS NOT NULL GROUP BY tag;
      CREATE FUNCTION plant_counts_inserted() RETURNS trigger LANGUAGE plpgsql AS $counts$
      BEGIN
        INSERT INTO plant_counts AS c (tag, n)
        SELECT x.tag, x.n FROM (
          SELECT '' AS tag, count(*) AS n FROM new_rows
          UNION ALL SELECT r.tag, count(*) FROM new_rows r WHERE r.tag IS NOT NULL GROUP BY r.tag
        ) x WHERE x.n <> 0 ORDER BY x.tag
        ON CONFLICT (tag) DO UPDATE SET n = c.n + EXCLUDED.n;
        RETURN NULL;
      END
      $counts$;
      CREATE FUNCTION plant_counts_deleted() RETURNS trigger LANGUAGE plpgsql AS $counts$
      BEGIN
        INSERT INTO plant_counts AS c (tag, n)
        SELECT x.tag, -x.n FROM (
          SELECT '' AS tag, count(*) AS n FROM old_rows
          UNION ALL SELECT r.tag, count(*) FROM old_rows r WHERE r.tag IS NOT NULL GROUP BY r.tag
        ) x WHERE x.n <> 0 ORDER BY x.tag
        ON CONFLICT (tag) DO UPDATE SET n = c.n + EXCLUDED.n;
        RETURN NULL;
      END
      $counts$;
      CREATE FUNCTION plant_counts_updated() RETURNS trigger LANGUAGE plpgsql AS $counts$
      BEGIN
        INSERT INTO plant_counts AS c (tag, n)
        SELECT x.tag, sum(x.d) FROM (
          SELECT r.tag, 1 AS d FROM new_rows r WHERE r.tag IS NOT NULL
          UNION ALL SELECT r.tag, -1 FROM old_rows r WHERE r.tag IS NOT NULL
        ) x GROUP BY x.tag HAVING sum(x.d) <> 0 ORDER BY x.tag
        ON CONFLICT (tag) DO UPDATE SET n = c.n + EXCLUDED.n;
        RETURN NULL;
      END
      $counts$;
      CREATE FUNCTION plant_counts_truncated() RETURNS trigger LANGUAGE plpgsql AS $counts$
      BEGIN
        DELETE FROM plant_counts;
        INSERT INTO plant_counts (tag, n) VALUES ('', 0);
        RETURN NULL;
      END
      $counts$;
      CREATE TRIGGER plant_counts_inserted AFTER INSERT ON plants REFERENCING NEW TABLE AS new_rows
        FOR EACH STATEMENT EXECUTE FUNCTION plant_counts_inserted();
      CREATE TRIGGER plant_counts_deleted AFTER DELETE ON plants REFERENCING OLD TABLE AS old_rows
        FOR EACH STATEMENT EXECUTE FUNCTION plant_counts_deleted();
      CREATE TRIGGER plant_counts_updated AFTER UPDATE ON plants REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
        FOR EACH STATEMENT EXECUTE FUNCTION plant_counts_updated();
      CREATE TRIGGER plant_counts_truncated AFTER TRUNCATE ON plants
        FOR EACH STATEMENT EXECUTE FUNCTION plant_counts_truncated();

      DO $trgm$
      DECLARE
        home text;
      BEGIN
        BEGIN
          CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public;
          SELECT extnamespace::regnamespace::text INTO home FROM pg_extension WHERE extname = 'pg_trgm';
          EXECUTE format('CREATE INDEX plants_name_trgm ON plants USING gin (name_folded %s.gin_trgm_ops)', home);
        EXCEPTION WHEN insufficient_privilege OR undefined_file OR feature_not_supported OR undefined_object
          OR invalid_schema_name THEN
          RAISE WARNING 'plant store: no pg_trgm index (%); substring searches will read the whole table', SQLERRM;
        END;
      END
      $trgm$;

${writeFunction(false)}    `,
};
