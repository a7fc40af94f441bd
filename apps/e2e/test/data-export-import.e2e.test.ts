import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  dataCli,
  jsonLines,
  readSqlite,
  seededPlant,
  sqlitePlantCount,
  startDataCli,
  writeSeedFile,
  type PlantLine,
} from './support/data-cli.js';

/** Lines the import writes per transaction (apps/server/src/data/import.ts). */
const IMPORT_CHUNK = 1000;
import { paths } from './support/paths.js';
import { runNode, tempDir } from './support/processes.js';

// `plant-store-data export` and `import` as an operator runs them, on SQLite files no server has
// open: what goes in comes out byte for byte, a bad or conflicting line is named by its number,
// and webhook events are written only when asked for.

type Row = { id: number; name: string; tag: string | null };

const rows = (file: string): Row[] =>
  readSqlite(file, (db) => db.prepare('SELECT id, name, tag FROM plants ORDER BY id').all() as Row[]);

const asRow = (plant: PlantLine): Row => ({ id: plant.id, name: plant.name, tag: plant.tag ?? null });

describe('plant-store-data export and import', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let n = 0;
  /** A path in the test's folder, new each time. */
  const fresh = (name: string): string => join(dir.path, `${(n += 1)}-${name}`);
  const env = (file: string) => ({ DATABASE_URL: `sqlite:${file}` });

  beforeAll(async () => {
    dir = await tempDir('data-export-import');
  });

  afterAll(async () => {
    await dir?.remove();
  });

  it('exports what was imported byte for byte, in id order, whatever the order of the file', async () => {
    // Ids with gaps, names that need escaping and UTF-8, plants with and without a tag.
    const plants = Array.from({ length: 5000 }, (_, i) => seededPlant(3 * i + (i % 2) + 1));
    const sorted = jsonLines(plants);
    const file = fresh('plants.jsonl');
    writeFileSync(file, sorted);
    const store = fresh('store.db');
    expect(await dataCli(['import', file], env(store))).toEqual({
      code: 0,
      stdout: 'imported 5000, already present 0, conflicts 0, invalid 0\n',
      stderr: '',
    });

    const toStdout = await dataCli(['export'], env(store));
    expect(toStdout.code).toBe(0);
    expect(toStdout.stderr).toBe('');
    expect(Buffer.from(toStdout.stdout).equals(readFileSync(file))).toBe(true);
    const output = fresh('export.jsonl');
    const toFile = await dataCli(['export', '--output', output], env(store));
    expect(toFile).toMatchObject({ code: 0, stdout: '' });
    expect(readFileSync(output).equals(readFileSync(file))).toBe(true);

    // The same lines shuffled (a fixed permutation) come out in id order.
    const shuffled = fresh('shuffled.jsonl');
    writeFileSync(shuffled, jsonLines(plants.map((_, i) => plants[(i * 2003) % plants.length] as PlantLine)));
    const second = fresh('store.db');
    expect((await dataCli(['import', shuffled], env(second))).code).toBe(0);
    expect((await dataCli(['export'], env(second))).stdout).toBe(sorted);
  });

  it('refuses a file with invalid lines, naming each by number, and writes nothing; --skip-invalid writes the rest', async () => {
    const good = [seededPlant(1), seededPlant(3), seededPlant(6), seededPlant(7)];
    const file = fresh('bad-lines.jsonl');
    writeFileSync(
      file,
      [
        JSON.stringify(good[0]),
        '{"id": 2, "name": ""}',
        JSON.stringify(good[1]),
        'not json at all',
        '{"name": "Without an id"}',
        JSON.stringify(good[2]),
        '',
        JSON.stringify(good[3]),
        '',
      ].join('\n'),
    );
    const store = fresh('store.db');

    const refused = await dataCli(['import', file], env(store));
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    const reported = refused.stderr.trim().split('\n');
    expect(reported).toHaveLength(4);
    expect(reported[0]).toMatch(/^line 2: .*name/);
    expect(reported[1]).toMatch(/^line 4: not valid JSON/);
    expect(reported[2]).toMatch(/^line 5: id: required/);
    expect(reported[3]).toContain('3 invalid line(s); nothing imported');
    expect(sqlitePlantCount(store)).toBe(0);

    const skipping = await dataCli(['import', file, '--skip-invalid'], env(store));
    expect(skipping.stdout).toBe('imported 4, already present 0, conflicts 0, invalid 3\n');
    expect(skipping.code).toBe(1);
    expect(skipping.stderr.trim().split('\n')).toEqual(reported.slice(0, 3));
    expect(rows(store)).toEqual(good.map(asRow));
  });

  it('refuses a pipe or a folder as its input with exit 2, since it reads the file twice', async () => {
    const store = fresh('store.db');
    for (const input of ['/dev/stdin', dir.path]) {
      const refused = await dataCli(['import', input], env(store));
      expect(refused.code, refused.stderr).toBe(2);
      expect(refused.stderr).toMatch(/must be a regular file/);
    }
  });

  it('reports a line whose id is stored with another name by number, exit 1, and writes the other lines', async () => {
    const store = fresh('store.db');
    const stored = [seededPlant(10), seededPlant(20)];
    const first = fresh('first.jsonl');
    writeFileSync(first, jsonLines(stored));
    expect((await dataCli(['import', first], env(store))).code).toBe(0);

    const file = fresh('conflict.jsonl');
    writeFileSync(file, jsonLines([seededPlant(10), { id: 20, name: 'Another name' }, seededPlant(30)]));
    const result = await dataCli(['import', file], env(store));
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('imported 1, already present 1, conflicts 1, invalid 0\n');
    expect(result.stderr).toBe(`line 2: id 20 is stored as ${JSON.stringify(stored[1])}; not imported\n`);
    expect(rows(store)).toEqual([...stored, seededPlant(30)].map(asRow));
  });

  it('writes a pending delivery per imported plant with --emit-events, and none without', async () => {
    const store = fresh('store.db');
    const webhooks = { ...env(store), WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true' };
    // Nothing listens there, and no server runs: deliveries stay pending.
    const added = await runNode(paths.webhooksCli, ['add', '--url', 'http://127.0.0.1:9/plant-events'], webhooks);
    expect(added.code).toBe(0);
    type Delivery = { event_type: string; status: string; body: string };
    const deliveries = () =>
      readSqlite(
        store,
        (db) => db.prepare('SELECT event_type, status, body FROM webhook_deliveries').all() as Delivery[],
      );

    const quiet = fresh('quiet.jsonl');
    writeFileSync(quiet, jsonLines(Array.from({ length: 40 }, (_, i) => seededPlant(i + 1))));
    expect((await dataCli(['import', quiet], env(store))).code).toBe(0);
    expect(sqlitePlantCount(store)).toBe(40);
    expect(deliveries()).toEqual([]);

    const loud = fresh('loud.jsonl');
    const announced = Array.from({ length: 25 }, (_, i) => seededPlant(i + 41));
    // One already stored, unchanged: present, so no event for it.
    writeFileSync(loud, jsonLines([seededPlant(1), ...announced]));
    expect(await dataCli(['import', loud, '--emit-events'], env(store))).toMatchObject({
      code: 0,
      stdout: 'imported 25, already present 1, conflicts 0, invalid 0\n',
    });
    const written = deliveries();
    expect(written.map((d) => [d.event_type, d.status])).toEqual(announced.map(() => ['plant.created', 'pending']));
    const events = written.map((d) => (JSON.parse(d.body) as { data: PlantLine }).data);
    expect(events.sort((a, b) => a.id - b.id)).toEqual(announced);
  });

  it('kill -9 mid-import leaves whole chunks, each plant as in the file; the re-run adds the rest', async () => {
    const total = 100_000;
    const file = fresh('big.jsonl');
    await writeSeedFile(file, 1, total);
    const store = fresh('killed.db');
    const command = startDataCli(['import', file], env(store));
    let stored = 0;
    const end = Date.now() + 60_000;
    // Killed once a few chunks are in and well before the last.
    while (stored < 3 * IMPORT_CHUNK && Date.now() < end) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      try {
        stored = sqlitePlantCount(store);
      } catch {
        // Not created yet, or its tables not yet made.
      }
    }
    command.kill('SIGKILL');
    expect((await command.done).signal).toBe('SIGKILL');

    stored = sqlitePlantCount(store);
    expect(stored).toBeGreaterThan(0);
    expect(stored).toBeLessThan(total);
    expect(stored % IMPORT_CHUNK).toBe(0);
    expect(readSqlite(store, (db) => db.pragma('integrity_check', { simple: true }))).toBe('ok');
    expect(rows(store)).toEqual(Array.from({ length: stored }, (_, i) => asRow(seededPlant(i + 1))));

    expect(await dataCli(['import', file], env(store))).toEqual({
      code: 0,
      stdout: `imported ${total - stored}, already present ${stored}, conflicts 0, invalid 0\n`,
      stderr: '',
    });
    expect(sqlitePlantCount(store)).toBe(total);
  });
});
