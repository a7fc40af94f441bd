import type { PostgresMigration } from './postgres-migration.js';

export const migration0011: PostgresMigration = {
  version: 11,
  name: 'the tag each change took its plant away from, and the change log by tag',
  // A feed of one tag (GET /plants/changes?tag=T) shows the changes of plants that have T before
  // or after the change; `tag` says after, and `left_tag` remembers the tag a change took its
  // plant away from (docs/explanation/storage.md, "The change log"): an update that changed the
  // tag, the tag before; a delete, the tag the plant had; else NULL. Two partial indexes by tag
  // make a subset's page cost its matching changes, not the log's length.
  //
  // Expand only: the release before keeps reading and writing the columns it knows (it never
  // names left_tag nor untagged_through), and its writes are logged by the new trigger function
  // like this release's. plant_store_log_changes_v3 is v2 (migration 9) with left_tag filled;
  // v2 stays until no release uses it. The changes already logged get their left tag from the
  // change before them of the same plant; where that change is no longer in the log (forgotten,
  // or made before migration 8) the left tag is unknown, and `untagged_through` keeps the newest
  // such number: a feed of one tag from below it answers 410, as if those changes were forgotten.
  sql: `
      ALTER TABLE plant_changes ADD COLUMN left_tag text;
      ALTER TABLE plant_change_state ADD COLUMN untagged_through int8 NOT NULL DEFAULT 0;
      CREATE TEMP TABLE plant_changes_before ON COMMIT DROP AS
        SELECT seq, type, tag, lag(tag) OVER w AS tag_before, lag(seq) OVER w AS seq_before
          FROM plant_changes WINDOW w AS (PARTITION BY plant_id ORDER BY seq);
      UPDATE plant_changes c SET left_tag = b.tag_before
        FROM plant_changes_before b
       WHERE b.seq = c.seq AND b.seq_before IS NOT NULL AND b.tag_before IS NOT NULL
         AND (b.type = 'plant.deleted' OR (b.type = 'plant.updated' AND b.tag_before IS DISTINCT FROM b.tag));
      UPDATE plant_change_state SET untagged_through = coalesce(
        (SELECT max(seq) FROM plant_changes_before WHERE type <> 'plant.created' AND seq_before IS NULL), 0);
      DROP TABLE plant_changes_before;
      CREATE INDEX plant_changes_by_tag ON plant_changes (tag, seq) WHERE tag IS NOT NULL;
      CREATE INDEX plant_changes_by_left_tag ON plant_changes (left_tag, seq) WHERE left_tag IS NOT NULL;
      CREATE FUNCTION plant_store_log_changes_v3() RETURNS trigger LANGUAGE plpgsql AS $log$
      DECLARE
        n    int8;
        base int8;
        now_ms int8 := (extract(epoch FROM clock_timestamp()) * 1000)::int8;
        not_plant CONSTANT text[] := '{id,version,name_folded}';
      BEGIN
        IF current_setting('plant_store.copying', true) = 'on' THEN RETURN NULL; END IF;
        IF TG_OP = 'INSERT' THEN
          SELECT count(*) INTO n FROM new_rows;
        ELSIF TG_OP = 'UPDATE' THEN
          SELECT count(*) INTO n FROM new_rows nw JOIN old_rows o ON o.id = nw.id
           WHERE to_jsonb(nw) - not_plant IS DISTINCT FROM to_jsonb(o) - not_plant;
        ELSE
          SELECT count(*) INTO n FROM old_rows;
        END IF;
        IF n = 0 THEN RETURN NULL; END IF;
        UPDATE plant_change_state SET last_seq = last_seq + n RETURNING last_seq - n INTO base;
        IF TG_OP = 'INSERT' THEN
          INSERT INTO plant_changes
          SELECT r.* FROM (SELECT to_jsonb(nw) AS plant, base + row_number() OVER (ORDER BY nw.id) AS seq FROM new_rows nw) s,
                 LATERAL jsonb_populate_record(NULL::plant_changes, (s.plant - not_plant) || jsonb_build_object(
                   'seq', s.seq, 'type', 'plant.created', 'plant_id', s.plant -> 'id', 'version', s.plant -> 'version',
                   'at', now_ms)) r;
        ELSIF TG_OP = 'UPDATE' THEN
          INSERT INTO plant_changes
          SELECT r.* FROM (
                   SELECT to_jsonb(nw) AS plant, base + row_number() OVER (ORDER BY nw.id) AS seq,
                          CASE WHEN nw.tag IS DISTINCT FROM o.tag THEN o.tag END AS left_tag
                     FROM new_rows nw JOIN old_rows o ON o.id = nw.id
                    WHERE to_jsonb(nw) - not_plant IS DISTINCT FROM to_jsonb(o) - not_plant) s,
                 LATERAL jsonb_populate_record(NULL::plant_changes, (s.plant - not_plant) || jsonb_build_object(
                   'seq', s.seq, 'type', 'plant.updated', 'plant_id', s.plant -> 'id', 'version', s.plant -> 'version',
                   'at', now_ms, 'left_tag', s.left_tag)) r;
        ELSE
          INSERT INTO plant_changes (seq, type, plant_id, left_tag, at)
          SELECT base + row_number() OVER (ORDER BY o.id), 'plant.deleted', o.id, o.tag, now_ms FROM old_rows o;
        END IF;
        RETURN NULL;
      END
      $log$;
      DROP TRIGGER plant_changes_insert ON plants;
      DROP TRIGGER plant_changes_update ON plants;
      DROP TRIGGER plant_changes_delete ON plants;
      CREATE TRIGGER plant_changes_insert AFTER INSERT ON plants REFERENCING NEW TABLE AS new_rows
        FOR EACH STATEMENT EXECUTE FUNCTION plant_store_log_changes_v3();
      CREATE TRIGGER plant_changes_update AFTER UPDATE ON plants REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
        FOR EACH STATEMENT EXECUTE FUNCTION plant_store_log_changes_v3();
      CREATE TRIGGER plant_changes_delete AFTER DELETE ON plants REFERENCING OLD TABLE AS old_rows
        FOR EACH STATEMENT EXECUTE FUNCTION plant_store_log_changes_v3();
    `,
};
