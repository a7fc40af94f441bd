import { join } from 'node:path';
import { describePostgres, freshPostgresUrl, openAdminSql, until, type FreshPostgres } from '@plant-store/testkit';
import postgres from 'postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { dataCli, sqlitePlantCount, startDataCli, writeSeedFile, type RunningCommand } from './support/data-cli.js';
import { tempDir } from './support/processes.js';

// `plant-store-data migrate` stopped half-way, by kill -9 or Ctrl-C, in both directions: the
// target must be left without a plant (its schema may exist), and a re-run must then find it
// empty and move everything. Each stop waits until several chunks of plants have gone to the
// target (their statements seen in PostgreSQL), so it lands mid-copy whatever the machine's speed,
// and a migrate that committed chunk by chunk would leave plants behind: stopped at the first
// chunk, a commit per chunk and one commit at the end both leave none.

const PLANTS = 100_000;
/** Stopped after this many chunks of plants (5,000 each, the data adapters' CHUNK) reached the target. */
const CHUNKS_BEFORE_STOP = 3;

const plantsIn = async (database: FreshPostgres): Promise<number> => {
  const sql = postgres(database.url, { max: 1, fetch_types: false, onnotice: () => undefined });
  try {
    const [row] = await sql`SELECT count(*)::int AS n FROM plants`;
    return Number(row?.['n']);
  } finally {
    await sql.end({ timeout: 5 });
  }
};

/**
 * Starts `migrate …args`, waits until its connection to `watched` has begun CHUNKS_BEFORE_STOP + 1
 * statements matching `pattern` (each one told apart by when it began), so that at least
 * CHUNKS_BEFORE_STOP chunks of plants have reached the target, sends `signal` and waits for the
 * exit. Fails if the command ends first.
 */
const stopMidCopy = async (
  args: readonly string[],
  watched: FreshPostgres,
  pattern: string,
  signal: NodeJS.Signals,
): Promise<Awaited<RunningCommand['done']>> => {
  const admin = openAdminSql();
  try {
    // Connections opened before the command (an earlier command's, not yet gone) do not count.
    const [clock] = await admin`SELECT clock_timestamp() AS now`;
    const command = startDataCli(['migrate', ...args], {});
    let ended = false;
    void command.done.then(() => (ended = true));
    const begun = new Set<string>();
    await until(
      `statement ${CHUNKS_BEFORE_STOP + 1} like ${pattern} from migrate`,
      async () => {
        if (ended) throw new Error(`migrate ended before it could be stopped:\n${(await command.done).stderr}`);
        const seen = await admin`SELECT query_start::text AS began FROM pg_stat_activity
                                  WHERE application_name = ${watched.schema} AND backend_start > ${clock?.['now'] as Date}
                                    AND query LIKE ${pattern}`;
        for (const row of seen) begun.add(String(row['began']));
        return begun.size > CHUNKS_BEFORE_STOP;
      },
      60_000,
      { everyMs: 5, detail: () => `${begun.size} seen` },
    );
    command.kill(signal);
    return await command.done;
  } finally {
    await admin.end({ timeout: 5 });
  }
};

/** The COPY of a chunk of plants into a PostgreSQL target. */
const COPYING_IN = 'COPY plants%';
/** A keyset read of the next chunk of plants from a PostgreSQL source: the chunk before is in the target. */
const READING_ON = '%FROM plants WHERE (id) >%';

const MOVED = new RegExp(`^moved .+ in [\\d.]+ s: plants ${PLANTS}, .*counts and checksums match`);

describePostgres('plant-store-data migrate, interrupted', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let source: string;
  const databases: FreshPostgres[] = [];
  const freshDatabase = async () => {
    const database = await freshPostgresUrl();
    databases.push(database);
    return database;
  };

  beforeAll(async () => {
    dir = await tempDir('data-migrate-interrupted');
    source = join(dir.path, 'source.db');
    const seed = join(dir.path, 'seed.jsonl');
    await writeSeedFile(seed, 1, PLANTS);
    expect((await dataCli(['import', seed], { DATABASE_URL: `sqlite:${source}` })).code).toBe(0);
  });

  afterAll(async () => {
    for (const database of databases) await database.drop();
    await dir?.remove();
  });

  let copied: FreshPostgres | undefined;

  it('SQLite → PostgreSQL: kill -9 mid-copy leaves no plant in the target; a re-run moves them all', async () => {
    const target = await freshDatabase();
    const args = ['--from', `sqlite:${source}`, '--to', target.url];
    expect((await stopMidCopy(args, target, COPYING_IN, 'SIGKILL')).signal).toBe('SIGKILL');
    expect(await plantsIn(target)).toBe(0);

    const again = await dataCli(['migrate', ...args]);
    expect(again.stderr).toBe('');
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(MOVED);
    expect(await plantsIn(target)).toBe(PLANTS);
    copied = target;
  });

  it('PostgreSQL → SQLite: kill -9 mid-copy leaves no plant in the target file; a re-run moves them all', async () => {
    if (copied === undefined) throw new Error('needs the PostgreSQL store of the test before');
    const target = join(dir.path, 'back.db');
    const args = ['--from', copied.url, '--to', `sqlite:${target}`];
    expect((await stopMidCopy(args, copied, READING_ON, 'SIGKILL')).signal).toBe('SIGKILL');
    expect(sqlitePlantCount(target)).toBe(0);

    const again = await dataCli(['migrate', ...args]);
    expect(again.stderr).toBe('');
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(MOVED);
    expect(sqlitePlantCount(target)).toBe(PLANTS);
  });

  it('Ctrl-C mid-copy: exits non-zero, the PostgreSQL target holds no plant', async () => {
    const target = await freshDatabase();
    const args = ['--from', `sqlite:${source}`, '--to', target.url];
    const { code, stdout } = await stopMidCopy(args, target, COPYING_IN, 'SIGINT');
    expect(code).not.toBe(0);
    expect(stdout).toBe('');
    expect(await plantsIn(target)).toBe(0);
  });

  it('Ctrl-C mid-copy: exits non-zero, the SQLite target holds no plant', async () => {
    if (copied === undefined) throw new Error('needs the PostgreSQL store of the first test');
    const target = join(dir.path, 'interrupted.db');
    const args = ['--from', copied.url, '--to', `sqlite:${target}`];
    const { code, stdout } = await stopMidCopy(args, copied, READING_ON, 'SIGINT');
    expect(code).not.toBe(0);
    expect(stdout).toBe('');
    expect(sqlitePlantCount(target)).toBe(0);
  });
});
