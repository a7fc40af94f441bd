import Database from 'better-sqlite3';
import type { NewPlant, PlantChanges, PlantRow, SyncPeerStore } from './peer.js';
import { toRecord } from './peer.js';

/**
 * The SQLite store of the `fastify-sqlite` and `koa-minimal` peers, as better-sqlite3's users run
 * it: WAL, `synchronous=NORMAL`, prepared statements, each request one transaction (a single
 * statement is one implicit transaction; a create without an id picks max(id)+1 inside
 * `db.transaction`, which better-sqlite3 runs synchronously, so nothing comes between the two).
 * No group commit, no worker thread: every call blocks the event loop for its statement.
 */
export const openSqlitePlants = (file: string): SyncPeerStore => {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(`
    CREATE TABLE IF NOT EXISTS plants (id INTEGER PRIMARY KEY, name TEXT NOT NULL, tag TEXT);
    CREATE INDEX IF NOT EXISTS plants_tag_id ON plants (tag, id) WHERE tag IS NOT NULL;
  `);

  const insert = db.prepare<[number, string, string | null]>(
    'INSERT INTO plants (id, name, tag) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING',
  );
  const maxId = db.prepare<[], { readonly max: number }>('SELECT coalesce(max(id), 0) AS max FROM plants');
  const insertNext = db.transaction((name: string, tag: string | null): number => {
    const id = (maxId.get() as { readonly max: number }).max + 1;
    insert.run(id, name, tag);
    return id;
  });
  const select = db.prepare<[number], PlantRow>('SELECT id, name, tag FROM plants WHERE id = ?');
  // One statement: `keepTag` = 1 keeps the tag (absent from the patch), else it becomes `tag`.
  const update = db.prepare<{ id: number; name: string | null; keepTag: number; tag: string | null }, PlantRow>(
    'UPDATE plants SET name = coalesce(@name, name), tag = CASE WHEN @keepTag = 1 THEN tag ELSE @tag END WHERE id = @id RETURNING id, name, tag',
  );
  const remove = db.prepare<[number]>('DELETE FROM plants WHERE id = ?');
  const page = db.prepare<[number, number], PlantRow>(
    'SELECT id, name, tag FROM plants WHERE id > ? ORDER BY id LIMIT ?',
  );
  const tagPage = db.prepare<[string, number, number], PlantRow>(
    'SELECT id, name, tag FROM plants WHERE tag = ? AND id > ? ORDER BY id LIMIT ?',
  );

  return {
    create: ({ id, name, tag }: NewPlant) => {
      if (id === undefined) return insertNext(name, tag ?? null);
      return insert.run(id, name, tag ?? null).changes === 1 ? id : undefined;
    },
    get: (id) => {
      const row = select.get(id);
      return row === undefined ? undefined : toRecord(row);
    },
    update: (id, { name, tag }: PlantChanges) => {
      const row = update.get({ id, name: name ?? null, keepTag: tag === undefined ? 1 : 0, tag: tag ?? null });
      return row === undefined ? undefined : toRecord(row);
    },
    remove: (id) => remove.run(id).changes === 1,
    list: (limit, after, tag) =>
      (tag === undefined ? page.all(after, limit) : tagPage.all(tag, after, limit)).map(toRecord),
    close: () => {
      db.close();
    },
  };
};
