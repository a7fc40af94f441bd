/**
 * The change log's triggers as migration 8 made them (released: never edited). Migration 9 made
 * the insert and update triggers again with changeTriggersOf.
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

/**
 * The change log's insert and update triggers for a plant of `fields` (its columns besides the
 * id). The update trigger has no column list: it fires on every update of `plants` and logs one
 * exactly when the plant changed, comparing every field (IS NOT: NULL-safe, code unit for code
 * unit); a refold or any other column's change is not a change of the plant. Part of released
 * migrations (9): a migration that adds a plant column calls it again with the longer list, after
 * dropping the two triggers; its text for a given list never changes.
 */
export const changeTriggersOf = (fields: readonly string[]): string => {
  const columns = fields.join(', ');
  const values = fields.map((f) => `new.${f}`).join(', ');
  const changed = fields.map((f) => `new.${f} IS NOT old.${f}`).join(' OR ');
  return `
      CREATE TRIGGER plant_changes_insert AFTER INSERT ON plants BEGIN
        UPDATE plant_change_state SET last_seq = last_seq + 1;
        INSERT INTO plant_changes (seq, type, plant_id, ${columns}, version, at)
          SELECT last_seq, 'plant.created', new.id, ${values}, new.version,
                 CAST(round((julianday('now') - 2440587.5) * 86400000) AS INTEGER)
            FROM plant_change_state;
      END;
      CREATE TRIGGER plant_changes_update AFTER UPDATE ON plants
        WHEN ${changed} BEGIN
        UPDATE plant_change_state SET last_seq = last_seq + 1;
        INSERT INTO plant_changes (seq, type, plant_id, ${columns}, version, at)
          SELECT last_seq, 'plant.updated', new.id, ${values}, new.version,
                 CAST(round((julianday('now') - 2440587.5) * 86400000) AS INTEGER)
            FROM plant_change_state;
      END;`;
};

/**
 * The change log's triggers from migration 11 on: those of changeTriggersOf, and each change also
 * remembers `left_tag`, the tag it took the plant away from (an update that changed the tag: the
 * tag before; a delete: the tag the plant had; NULL otherwise), so that a feed of one tag finds,
 * through an index, the changes that took a plant out of it (GET /plants/changes?tag=T;
 * docs/explanation/storage.md, "The change log"). Part of a released migration once released
 * (11): a migration that adds a plant column drops plant_changes_insert and plant_changes_update
 * and calls changeTriggersWithLeftTagOf again with the longer list; its text for a given list
 * never changes. The delete trigger does not depend on the columns: CHANGE_DELETE_TRIGGER_WITH_LEFT_TAG.
 */
export const changeTriggersWithLeftTagOf = (fields: readonly string[]): string => {
  const columns = fields.join(', ');
  const values = fields.map((f) => `new.${f}`).join(', ');
  const changed = fields.map((f) => `new.${f} IS NOT old.${f}`).join(' OR ');
  return `
      CREATE TRIGGER plant_changes_insert AFTER INSERT ON plants BEGIN
        UPDATE plant_change_state SET last_seq = last_seq + 1;
        INSERT INTO plant_changes (seq, type, plant_id, ${columns}, version, at)
          SELECT last_seq, 'plant.created', new.id, ${values}, new.version,
                 CAST(round((julianday('now') - 2440587.5) * 86400000) AS INTEGER)
            FROM plant_change_state;
      END;
      CREATE TRIGGER plant_changes_update AFTER UPDATE ON plants
        WHEN ${changed} BEGIN
        UPDATE plant_change_state SET last_seq = last_seq + 1;
        INSERT INTO plant_changes (seq, type, plant_id, ${columns}, left_tag, version, at)
          SELECT last_seq, 'plant.updated', new.id, ${values},
                 CASE WHEN new.tag IS NOT old.tag THEN old.tag END, new.version,
                 CAST(round((julianday('now') - 2440587.5) * 86400000) AS INTEGER)
            FROM plant_change_state;
      END;`;
};

/** The delete trigger of migration 11: the change remembers the tag the plant had. */
export const CHANGE_DELETE_TRIGGER_WITH_LEFT_TAG = `
      CREATE TRIGGER plant_changes_delete AFTER DELETE ON plants BEGIN
        UPDATE plant_change_state SET last_seq = last_seq + 1;
        INSERT INTO plant_changes (seq, type, plant_id, left_tag, at)
          SELECT last_seq, 'plant.deleted', old.id, old.tag,
                 CAST(round((julianday('now') - 2440587.5) * 86400000) AS INTEGER)
            FROM plant_change_state;
      END;`;
