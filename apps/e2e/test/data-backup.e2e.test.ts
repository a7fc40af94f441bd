import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataCli, readSqlite, sqlitePlantCount, startDataCli, writeSeedFile } from './support/data-cli.js';
import { startServer, tempDir, type ServerProcess } from './support/processes.js';
import { createToken } from './support/token.js';

// `plant-store-data backup` run as its own process beside a server that keeps taking creates: the
// copy must hold every create acknowledged before the command started and no half row, pass
// integrity_check, and serve as the original did; a killed run leaves nothing under the target's
// name. 200k plants make the copy last long enough to overlap with the load and to be killed.

const SEEDED = 200_000;
const CONNECTIONS = 50;
/** Load before the backup starts, to measure the create rate without it. */
const WARM_UP_MS = 500;
const BEFORE_MS = 2000;

interface Ack {
  readonly id: number;
  /** performance.now() when the 201 had arrived. */
  readonly at: number;
  readonly latencyMs: number;
}

interface CreateLoad {
  /** Every 201, in the order they arrived. */
  readonly acks: Ack[];
  /** Anything but a 201: status or error message. */
  readonly failures: string[];
  /** Stops sending, waits for the requests in flight. */
  stop(): Promise<void>;
}

const post = (agent: http.Agent, url: string, token: string, body: string) =>
  new Promise<{ status: number; location: string }>((resolve, reject) => {
    const request = http.request(
      `${url}/plants`,
      {
        method: 'POST',
        agent,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      },
      (response) => {
        response.resume();
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, location: String(response.headers.location) }),
        );
      },
    );
    request.on('error', reject);
    request.end(body);
  });

/** `connections` keep-alive connections, each creating plants one after another until stopped (at most a minute). */
const startCreateLoad = (url: string, token: string, connections: number): CreateLoad => {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const acks: Ack[] = [];
  const failures: string[] = [];
  const deadline = performance.now() + 60_000;
  let stopping = false;
  const connection = async (n: number) => {
    for (let i = 0; !stopping && performance.now() < deadline; i += 1) {
      const sent = performance.now();
      try {
        const { status, location } = await post(
          agent,
          url,
          token,
          JSON.stringify({ name: `Load ${n}.${i}`, tag: `c${n}` }),
        );
        const at = performance.now();
        const id = Number(/^\/plants\/(\d+)$/.exec(location)?.[1]);
        if (status === 201 && Number.isSafeInteger(id)) acks.push({ id, at, latencyMs: at - sent });
        else failures.push(`${status} ${location}`);
      } catch (error) {
        failures.push(String(error));
      }
    }
  };
  const running = Array.from({ length: connections }, (_, n) => connection(n));
  return {
    acks,
    failures,
    stop: async () => {
      stopping = true;
      await Promise.all(running);
      agent.destroy();
    },
  };
};

const perSecond = (acks: readonly Ack[], from: number, to: number): number =>
  Math.round((acks.filter((a) => a.at >= from && a.at < to).length * 1000) / (to - from));

const BACKUP_LINE = /^(.+): (\d+) plants, (\d+) bytes, integrity ok\n$/;

const integrity = (file: string): string =>
  readSqlite(file, (db) => String(db.pragma('integrity_check', { simple: true })));

const partials = (dir: string): string[] => readdirSync(dir).filter((name) => name.includes('.partial-'));

const get = async (server: ServerProcess, token: string, id: number) => {
  const response = await fetch(`${server.url}/plants/${id}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: response.status, etag: response.headers.get('etag'), body: await response.text() };
};

const create = async (server: ServerProcess, token: string, body: unknown, key?: string) => {
  const response = await fetch(`${server.url}/plants`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      ...(key === undefined ? {} : { 'idempotency-key': key }),
    },
    body: JSON.stringify(body),
  });
  return {
    status: response.status,
    location: response.headers.get('location'),
    etag: response.headers.get('etag'),
    replayed: response.headers.get('idempotent-replayed'),
    body: await response.text(),
  };
};

/** Every `step`-th element of `list`, and its last one. */
const sample = <A>(list: readonly A[], count: number): A[] => {
  const step = Math.max(1, Math.floor(list.length / count));
  return [...list.filter((_, i) => i % step === 0), ...list.slice(-1)];
};

describe('plant-store-data backup of a SQLite store a server is writing to', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let store: string;
  let env: Record<string, string>;
  let token: string;
  let server: ServerProcess;
  let copyServer: ServerProcess | undefined;

  beforeAll(async () => {
    dir = await tempDir('data-backup');
    store = join(dir.path, 'store.db');
    env = { DATABASE_URL: `sqlite:${store}` };
    const seed = join(dir.path, 'seed.jsonl');
    await writeSeedFile(seed, 1, SEEDED);
    const imported = await dataCli(['import', seed], env);
    expect(imported).toMatchObject({
      code: 0,
      stdout: `imported ${SEEDED}, already present 0, conflicts 0, invalid 0\n`,
    });
    token = await createToken(env.DATABASE_URL as string, 'backup-e2e');
    // warn: 50 connections' request lines would only fill memory here.
    server = await startServer({ ...env, LOG_LEVEL: 'warn' });
  });

  afterAll(async () => {
    await copyServer?.stop();
    await server?.stop();
    await dir?.remove();
  });

  it('copies while 50 connections create: every acknowledged create in, no half row, a server on the copy answers the same', async () => {
    const copy = join(dir.path, 'copy.db');
    const keyed = { name: 'Kept with its key', tag: 'backup' };
    const first = await create(server, token, keyed, 'backup-e2e-1');
    expect(first.status).toBe(201);
    const load = startCreateLoad(server.url, token, CONNECTIONS);
    const loadStarted = performance.now();
    let ackedBefore: Ack[] = [];
    let started = 0;
    let finished = 0;
    let backup: Awaited<ReturnType<typeof dataCli>>;
    try {
      await sleep(BEFORE_MS);
      // Everything in `acks` now had its 201 before the command exists.
      ackedBefore = load.acks.slice();
      started = performance.now();
      backup = await dataCli(['backup', copy], env);
      finished = performance.now();
      await sleep(200); // the load runs on a little past the command's end: it ran under load throughout
    } finally {
      await load.stop();
    }
    const during = load.acks.filter((a) => a.at >= started && a.at < finished);
    console.log(
      `backup of ${SEEDED + ackedBefore.length} plants under ${CONNECTIONS} connections: ` +
        `${perSecond(load.acks, loadStarted + WARM_UP_MS, started)} creates/s before, ` +
        `${perSecond(load.acks, started, finished)} creates/s during the command (${Math.round(finished - started)} ms, ` +
        `slowest create ${Math.round(Math.max(0, ...during.map((a) => a.latencyMs)))} ms)`,
    );

    expect(load.failures).toEqual([]);
    expect(ackedBefore.length).toBeGreaterThan(0);
    expect(during.length).toBeGreaterThan(0);
    expect(backup.stderr).toBe('');
    expect(backup.code).toBe(0);
    const [, file, plants] = BACKUP_LINE.exec(backup.stdout) ?? [];
    expect(file).toBe(copy);
    expect(partials(dir.path)).toEqual([]);

    expect(integrity(copy)).toBe('ok');
    expect(sqlitePlantCount(copy)).toBe(Number(plants));
    const missing = readSqlite(copy, (db) => {
      const has = db.prepare('SELECT 1 FROM plants WHERE id = ?').pluck();
      return ackedBefore.filter((a) => has.get(a.id) === undefined).map((a) => a.id);
    });
    expect(missing).toEqual([]);
    expect(readSqlite(copy, (db) => db.prepare('SELECT count(*) FROM plants WHERE id <= ?').pluck().get(SEEDED))).toBe(
      SEEDED,
    );

    // Each row of the copy as the store holds it (nothing was updated since it was created).
    type Row = { id: number; name: string; tag: string | null; version: number };
    const copied = readSqlite(copy, (db) => db.prepare('SELECT id, name, tag, version FROM plants').all() as Row[]);
    const differing = readSqlite(store, (db) => {
      const original = db.prepare('SELECT id, name, tag, version FROM plants WHERE id = ?');
      return copied.filter((row) => JSON.stringify(original.get(row.id)) !== JSON.stringify(row));
    });
    expect(differing).toEqual([]);

    copyServer = await startServer({ DATABASE_URL: `sqlite:${copy}`, LOG_LEVEL: 'warn' });
    const inCopy = new Set(copied.map((row) => row.id));
    const ids = [
      ...sample(
        ackedBefore.map((a) => a.id),
        30,
      ),
      ...sample(
        during.map((a) => a.id).filter((id) => inCopy.has(id)),
        10,
      ),
      1,
      7,
      SEEDED,
    ];
    for (const id of ids) {
      const original = await get(server, token, id);
      expect(original.status).toBe(200);
      // The token was made before the copy: it is in it.
      expect(await get(copyServer, token, id)).toEqual(original);
    }
    // The saved outcome of a keyed create came along: the same 201 again, replayed.
    expect(await create(copyServer, token, keyed, 'backup-e2e-1')).toEqual({ ...first, replayed: 'true' });
    const added = await create(copyServer, token, { name: 'Only in the copy' });
    expect(added.status).toBe(201);
    expect(inCopy.has(Number(added.location?.split('/').at(-1)))).toBe(false);
  });

  it('kill -9 mid-copy leaves nothing under the target name; a re-run makes a whole copy', async () => {
    const target = join(dir.path, 'killed.db');
    const command = startDataCli(['backup', target], env);
    const partial = join(dir.path, `.killed.db.partial-${command.pid}`);
    let exited = false;
    void command.done.then(() => (exited = true));
    const sizes: number[] = [];
    // Killed once the hidden copy has grown; or, on a machine too busy to see it grow, once it has
    // held pages on three looks (the check that follows the copy is still ahead of the rename).
    const grown = () => sizes.length > 1 && (sizes.at(-1) as number) > (sizes[0] as number);
    while (!grown() && sizes.length < 3) {
      if (exited) throw new Error(`backup ended before it could be killed:\n${(await command.done).stderr}`);
      try {
        const { size } = statSync(partial);
        if (size > 0) sizes.push(size);
      } catch {
        // not there yet
      }
      await sleep(1); // polls as fast as it can: the kill must land while the copy is still being written
    }
    command.kill('SIGKILL');
    expect((await command.done).signal).toBe('SIGKILL');
    console.log(`backup killed after seeing ${sizes.join(', ')} bytes in ${partial}`);
    expect(existsSync(target)).toBe(false);

    const again = await dataCli(['backup', target], env);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(BACKUP_LINE);
    expect(integrity(target)).toBe('ok');
    expect(sqlitePlantCount(target)).toBe(sqlitePlantCount(store));
    // The killed command's partial copy is gone with it: the re-run removed it.
    expect(existsSync(partial)).toBe(false);
  });

  it('refuses an existing target without --force, leaving it as it was; replaces it with --force', async () => {
    const target = join(dir.path, 'taken.db');
    writeFileSync(target, 'not a store, and kept\n');
    const before = partials(dir.path);

    const refused = await dataCli(['backup', target], env);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain('--force');
    expect(readFileSync(target, 'utf8')).toBe('not a store, and kept\n');
    expect(partials(dir.path)).toEqual(before);

    const forced = await dataCli(['backup', target, '--force'], env);
    expect(forced.code).toBe(0);
    expect(forced.stdout).toMatch(BACKUP_LINE);
    expect(integrity(target)).toBe('ok');
    expect(sqlitePlantCount(target)).toBe(sqlitePlantCount(store));
  });

  it('makes the folders the target names', async () => {
    const target = join(dir.path, 'backups', 'daily', 'copy.db');
    const made = await dataCli(['backup', target], env);
    expect(made.code).toBe(0);
    expect(made.stdout).toMatch(BACKUP_LINE);
    expect(integrity(target)).toBe('ok');
  });

  it('on PostgreSQL: names pg_dump, writes nothing and exits 2', async () => {
    const target = join(dir.path, 'from-postgres.db');
    // Nothing listens there: the command must refuse before it connects.
    const refused = await dataCli(['backup', target], { DATABASE_URL: 'postgres://plant-store@127.0.0.1:1/none' });
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(/pg_dump/);
    expect(existsSync(target)).toBe(false);
  });
});
