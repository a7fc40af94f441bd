import type { PostgresMigration } from './postgres-migration.js';
import { writeFunctionV3, type WriteFunctionColumn } from './write-function-v3.js';

/**
 * The plant's columns as this migration knows them (a released migration never changes): what
 * plant_store_write_v3 is made for. PLANT_WRITE_FUNCTION (index.ts) says which function the
 * server calls and for which columns; plant-columns.test.ts fails when that differs from the
 * codec's members.
 */
export const MIGRATION_9_COLUMNS: readonly WriteFunctionColumn[] = [
  { field: 'name', kind: 'text', type: 'text' },
  { field: 'tag', kind: 'text', type: 'text' },
];

export const migration0009: PostgresMigration = {
  version: 9,
  name: 'the whole plant in the change log and in plant_store_write_v3',
  // Expand only: the release before keeps calling plant_store_write_v2, and its writes are
  // logged by the new trigger function like this release's.
  //
  // The change log's trigger function compares and copies the whole plant, not named columns:
  // the plant is a row of `plants` as JSON without the columns that are not the plant's (`id`,
  // the key; `version` and `name_folded`, which the store derives), so a column added to
  // `plants` is compared by itself, and it is copied into the column of `plant_changes` of the
  // same name (jsonb_populate_record), which the migration adding it adds too
  // (plant-columns.test.ts checks that both tables have every member's column). A column that is
  // not the plant's and is not listed here errs on the loud side: its change is logged as one of
  // the plant's. Migration 8's function stays until no release uses it.
  //
  // plant_store_write_v3 is plant_store_write_v2 with every plant column generated from the list
  // above (write-function-v3.ts), the events' data included. A migration that adds a plant
  // column makes plant_store_write_v4 from the longer list.
  sql: `
      CREATE FUNCTION plant_store_log_changes_v2() RETURNS trigger LANGUAGE plpgsql AS $log$
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
                   SELECT to_jsonb(nw) AS plant, base + row_number() OVER (ORDER BY nw.id) AS seq
                     FROM new_rows nw JOIN old_rows o ON o.id = nw.id
                    WHERE to_jsonb(nw) - not_plant IS DISTINCT FROM to_jsonb(o) - not_plant) s,
                 LATERAL jsonb_populate_record(NULL::plant_changes, (s.plant - not_plant) || jsonb_build_object(
                   'seq', s.seq, 'type', 'plant.updated', 'plant_id', s.plant -> 'id', 'version', s.plant -> 'version',
                   'at', now_ms)) r;
        ELSE
          INSERT INTO plant_changes (seq, type, plant_id, at)
          SELECT base + row_number() OVER (ORDER BY o.id), 'plant.deleted', o.id, now_ms FROM old_rows o;
        END IF;
        RETURN NULL;
      END
      $log$;
      DROP TRIGGER plant_changes_insert ON plants;
      DROP TRIGGER plant_changes_update ON plants;
      DROP TRIGGER plant_changes_delete ON plants;
      CREATE TRIGGER plant_changes_insert AFTER INSERT ON plants REFERENCING NEW TABLE AS new_rows
        FOR EACH STATEMENT EXECUTE FUNCTION plant_store_log_changes_v2();
      CREATE TRIGGER plant_changes_update AFTER UPDATE ON plants REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
        FOR EACH STATEMENT EXECUTE FUNCTION plant_store_log_changes_v2();
      CREATE TRIGGER plant_changes_delete AFTER DELETE ON plants REFERENCING OLD TABLE AS old_rows
        FOR EACH STATEMENT EXECUTE FUNCTION plant_store_log_changes_v2();
${writeFunctionV3('plant_store_write_v3', MIGRATION_9_COLUMNS)}    `,
};
