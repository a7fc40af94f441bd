import type { PostgresMigration } from './postgres-migration.js';

export const migration0008: PostgresMigration = {
  version: 8,
  name: 'the change log',
  // Every committed change of a plant, numbered in commit order over the whole database
  // (GET /plants/changes; docs/explanation/storage.md, "The change log"). Statement triggers
  // on plants fill it, so every writer does: this release, the release before it during a
  // rolling upgrade, the data commands. A number from a sequence would be drawn in start order
  // and committed in another (a reader that saw 8 before 7 committed would skip 7 forever);
  // here each statement's changes take their numbers by updating the one state row, whose
  // lock the transaction then holds until it commits, so a later number is never visible
  // before an earlier one. Writers already take turns on plant_id_counter's row, so this adds
  // a row update, not a wait. `last_seq` is the newest number given, `forgotten_through` the
  // newest forgotten (the retention); `at` is the commit time in milliseconds. A rename that
  // keeps name and tag is not a change. With `plant_store.copying` set (migrate), the
  // triggers log nothing: the copy brings the source's log.
  sql: `
      CREATE TABLE plant_change_state (
        singleton         boolean PRIMARY KEY DEFAULT true CHECK (singleton),
        last_seq          int8 NOT NULL,
        forgotten_through int8 NOT NULL
      );
      INSERT INTO plant_change_state (singleton, last_seq, forgotten_through) VALUES (true, 0, 0);
      CREATE TABLE plant_changes (
        seq      int8 PRIMARY KEY,
        type     text NOT NULL,
        plant_id int8 NOT NULL,
        name     text,
        tag      text,
        version  int8,
        at       int8 NOT NULL
      );
      CREATE FUNCTION plant_store_log_changes() RETURNS trigger LANGUAGE plpgsql AS $log$
      DECLARE
        n    int8;
        base int8;
        now_ms int8 := (extract(epoch FROM clock_timestamp()) * 1000)::int8;
      BEGIN
        IF current_setting('plant_store.copying', true) = 'on' THEN RETURN NULL; END IF;
        IF TG_OP = 'INSERT' THEN
          SELECT count(*) INTO n FROM new_rows;
        ELSIF TG_OP = 'UPDATE' THEN
          SELECT count(*) INTO n FROM new_rows nw JOIN old_rows o ON o.id = nw.id
           WHERE nw.name IS DISTINCT FROM o.name OR nw.tag IS DISTINCT FROM o.tag;
        ELSE
          SELECT count(*) INTO n FROM old_rows;
        END IF;
        IF n = 0 THEN RETURN NULL; END IF;
        UPDATE plant_change_state SET last_seq = last_seq + n RETURNING last_seq - n INTO base;
        IF TG_OP = 'INSERT' THEN
          INSERT INTO plant_changes (seq, type, plant_id, name, tag, version, at)
          SELECT base + row_number() OVER (ORDER BY nw.id), 'plant.created', nw.id, nw.name, nw.tag, nw.version, now_ms
            FROM new_rows nw;
        ELSIF TG_OP = 'UPDATE' THEN
          INSERT INTO plant_changes (seq, type, plant_id, name, tag, version, at)
          SELECT base + row_number() OVER (ORDER BY nw.id), 'plant.updated', nw.id, nw.name, nw.tag, nw.version, now_ms
            FROM new_rows nw JOIN old_rows o ON o.id = nw.id
           WHERE nw.name IS DISTINCT FROM o.name OR nw.tag IS DISTINCT FROM o.tag;
        ELSE
          INSERT INTO plant_changes (seq, type, plant_id, at)
          SELECT base + row_number() OVER (ORDER BY o.id), 'plant.deleted', o.id, now_ms FROM old_rows o;
        END IF;
        RETURN NULL;
      END
      $log$;
      CREATE TRIGGER plant_changes_insert AFTER INSERT ON plants REFERENCING NEW TABLE AS new_rows
        FOR EACH STATEMENT EXECUTE FUNCTION plant_store_log_changes();
      CREATE TRIGGER plant_changes_update AFTER UPDATE ON plants REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
        FOR EACH STATEMENT EXECUTE FUNCTION plant_store_log_changes();
      CREATE TRIGGER plant_changes_delete AFTER DELETE ON plants REFERENCING OLD TABLE AS old_rows
        FOR EACH STATEMENT EXECUTE FUNCTION plant_store_log_changes();
    `,
};
