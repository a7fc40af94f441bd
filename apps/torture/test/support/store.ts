import Database from 'better-sqlite3';
import { openAdminSql } from '@plant-store/testkit';
import postgres from 'postgres';

export interface StoredPlant {
  readonly id: number;
  readonly name: string;
  readonly tag: string | undefined;
}

export interface SqliteSnapshot {
  readonly plants: ReadonlyMap<number, StoredPlant>;
  readonly integrity: string;
}

/** Opens the SQLite file read-only (the server is dead), reads every plant and runs `PRAGMA integrity_check`. */
export const readSqlite = (file: string): SqliteSnapshot => {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const rows = db
      .prepare<[], { id: number; name: string; tag: string | null }>('SELECT id, name, tag FROM plants ORDER BY id')
      .all();
    const checks = db.prepare<[], { integrity_check: string }>('PRAGMA integrity_check').all();
    const plants = new Map<number, StoredPlant>(
      rows.map((r) => [r.id, { id: r.id, name: r.name, tag: r.tag ?? undefined }]),
    );
    return { plants, integrity: checks.map((c) => c.integrity_check).join('; ') };
  } finally {
    db.close();
  }
};

/** Reads every plant from the PostgreSQL schema `url` selects. */
export const readPostgres = async (url: string): Promise<ReadonlyMap<number, StoredPlant>> => {
  const sql = postgres(url, { max: 1, connect_timeout: 5, fetch_types: false, onnotice: () => undefined });
  try {
    const rows = await sql<
      { id: string; name: string; tag: string | null }[]
    >`select id::text as id, name, tag from plants order by id`;
    return new Map(rows.map((r) => [Number(r.id), { id: Number(r.id), name: r.name, tag: r.tag ?? undefined }]));
  } finally {
    await sql.end({ timeout: 5 });
  }
};

/** The webhook deliveries in a PostgreSQL store, by status (read directly: no listing limit). */
export const countDeliveries = async (
  url: string,
): Promise<{ readonly total: number; readonly byStatus: Readonly<Record<string, number>> }> => {
  const sql = postgres(url, { max: 1, connect_timeout: 5, fetch_types: false, onnotice: () => undefined });
  try {
    const rows = await sql<
      { status: string; n: number }[]
    >`select status, count(*)::int4 as n from webhook_deliveries group by status`;
    const byStatus = Object.fromEntries(rows.map((r) => [r.status, r.n]));
    return { total: rows.reduce((sum, r) => sum + r.n, 0), byStatus };
  } finally {
    await sql.end({ timeout: 5 });
  }
};

/** Lists every plant through the API, following the `Link: rel="next"` pages. */
export const listAll = async (baseUrl: string, token: string): Promise<Map<number, StoredPlant>> => {
  const plants = new Map<number, StoredPlant>();
  let path: string | undefined = '/plants?limit=1000';
  for (let pages = 0; path !== undefined; pages++) {
    if (pages > 10_000) throw new Error('too many pages');
    const response = await fetch(`${baseUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });
    if (response.status !== 200) throw new Error(`GET ${path} → ${response.status} ${await response.text()}`);
    const page = (await response.json()) as { id: number; name: string; tag?: string }[];
    for (const p of page) plants.set(p.id, { id: p.id, name: p.name, tag: p.tag });
    path = /<([^>]+)>;\s*rel="next"/.exec(response.headers.get('link') ?? '')?.[1];
  }
  return plants;
};

/**
 * Waits (bounded, 15 s) until no connection named `applicationName` — a killed server's, named
 * after its fresh schema — is left: a backend finishes its statement after its client died.
 */
export const backendsGone = async (applicationName: string): Promise<void> => {
  const admin = openAdminSql();
  try {
    for (const deadline = Date.now() + 15_000; ;) {
      const [row] =
        await admin`select count(*)::int4 as n from pg_stat_activity where application_name = ${applicationName} and pid <> pg_backend_pid()`;
      if (row?.['n'] === 0) return;
      if (Date.now() > deadline)
        throw new Error(`${String(row?.['n'])} backends of the killed server still alive after 15 s`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } finally {
    await admin.end({ timeout: 5 });
  }
};
