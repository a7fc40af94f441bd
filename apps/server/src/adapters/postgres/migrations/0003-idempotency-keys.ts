import type { PostgresMigration } from './postgres-migration.js';

export const migration0003: PostgresMigration = {
  version: 3,
  name: 'idempotency keys, and one function for every batch of writes',
  sql: `
      -- One row per (owner, key): the outcome a keyed create saved, in the transaction of the
      -- plant. request is the create's canonical JSON (what a later request must equal, and the
      -- name and tag of the plant a 201 created, plant_id); a 409 names the taken id. Rows past
      -- expires_at are ignored, overwritten by the key's next use, and purged.
      CREATE TABLE idempotency_keys (
        owner       text NOT NULL,
        key         text NOT NULL,
        request     text NOT NULL,
        status      int2 NOT NULL CHECK (status IN (201, 409)),
        plant_id    int8 NOT NULL,
        expires_at  timestamptz NOT NULL,
        PRIMARY KEY (owner, key)
      );
      CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);

      -- A batch of creates and deletes that name distinct ids and keys (write-queue.ts),
      -- as one transaction. It first locks the id counter, the writers' lock every write takes:
      -- in READ COMMITTED each later statement of a function sees a snapshot taken after that
      -- lock was granted, so the key lookup sees every key that any instance saved before. (In
      -- one plain statement the snapshot precedes the lock, and two instances could each miss
      -- the other's key.) Then the batch, with each write's saved key, if any, in place of the
      -- write. Returns one row per write, in order.
      CREATE FUNCTION plant_store_write(writes jsonb, max_explicit int8, autos int8, ttl_seconds int4)
      RETURNS TABLE (i int4, id text, done boolean, saved_request text, saved_status int2, saved_id text)
      LANGUAGE plpgsql VOLATILE AS $fn$
      #variable_conflict use_column
      BEGIN
        PERFORM 1 FROM plant_id_counter FOR UPDATE;
        RETURN QUERY
        WITH x AS (
          SELECT * FROM jsonb_to_recordset(writes)
            AS x(i int4, op text, id int8, auto int8, name text, tag text, owner text, key text, request text)
        ), saved AS (
          SELECT x.i, k.request, k.status, k.plant_id
            FROM x JOIN idempotency_keys k ON k.owner = x.owner AND k.key = x.key AND k.expires_at > now()
        ), counter AS (
          UPDATE plant_id_counter
             SET next_id = GREATEST(next_id, max_explicit + 1) + autos
          RETURNING next_id - autos AS base
        ), input AS (
          SELECT x.i, x.op, COALESCE(x.id, counter.base + x.auto) AS id, x.id IS NOT NULL AS chosen,
                 x.name, x.tag, x.owner, x.key, x.request
            FROM counter, x
           WHERE x.i NOT IN (SELECT s.i FROM saved s)
        ), deleted AS (
          DELETE FROM plants p USING input d WHERE d.op = 'delete' AND p.id = d.id RETURNING d.i
        ), inserted AS (
          INSERT INTO plants (id, name, tag)
          SELECT n.id, n.name, n.tag FROM input n WHERE n.op = 'create' AND n.id <= 9007199254740991 ORDER BY n.id
          ON CONFLICT (id) DO NOTHING
          RETURNING plants.id
        ), keyed AS (
          -- The outcome of every keyed create that has one: stored (201), or its chosen id taken
          -- (409). A server-assigned create that stored nothing saves nothing (its answer is a 503,
          -- or it is created in an id gap, key and all, by the write queue).
          INSERT INTO idempotency_keys (owner, key, request, status, plant_id, expires_at)
          SELECT n.owner, n.key, n.request, CASE WHEN ok THEN 201 ELSE 409 END, n.id,
                 now() + make_interval(secs => ttl_seconds)
            FROM (SELECT n.*, n.id IN (SELECT ins.id FROM inserted ins) AS ok FROM input n) n
           WHERE n.op = 'create' AND n.key IS NOT NULL AND (n.ok OR n.chosen)
          ON CONFLICT (owner, key) DO UPDATE SET
            request = EXCLUDED.request, status = EXCLUDED.status, plant_id = EXCLUDED.plant_id,
            expires_at = EXCLUDED.expires_at
        )
        SELECT x.i, n.id::text,
               CASE WHEN n.i IS NULL THEN false
                    WHEN n.op = 'delete' THEN n.i IN (SELECT d.i FROM deleted d)
                    ELSE n.id IN (SELECT ins.id FROM inserted ins) END,
               s.request, s.status, s.plant_id::text
          FROM x LEFT JOIN input n ON n.i = x.i LEFT JOIN saved s ON s.i = x.i
         ORDER BY x.i;
      END
      $fn$;
    `,
};
