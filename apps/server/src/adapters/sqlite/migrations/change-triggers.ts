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
