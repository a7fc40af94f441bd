import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  createPlantStoreClient,
  NotFoundError,
  type Change,
  type Plant,
  type PlantMirror,
  type PlantStoreClient,
} from '@plant-store/client';
import { ChangePage } from '@plant-store/domain';
import { describePostgres, freshPostgresUrl, type FreshPostgres, until } from '@plant-store/testkit';
import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paths } from './support/paths.js';
import { runNode, startServer, tempDir, type ServerProcess } from './support/processes.js';
import { useLiveServer } from './support/store.js';
import { createToken } from './support/token.js';

/*
 * A model test of list-then-follow against the real server: random creates (server-assigned and
 * chosen ids), patches (some that change nothing), deletes (some of plants that do not exist) and
 * imports (the client CLI's `plant-store import`, with lines already present and lines that
 * conflict) run through the API in three phases — before a `plants.mirror()` starts, while it
 * lists (each write of that phase just before the page it names), and after it is ready. At the
 * end, once the mirror
 * has reached the store's X-Change-Seq:
 * - the change log of the run is what the model expects, in order (an import's plants in any order);
 * - the mirror reported exactly the changes the list-then-follow rule applies: every change after
 *   the first page's number, but those of a plant at or below the number of the page it came from
 *   (worked out again here from the log and the pages the mirror read);
 * - the mirror's map equals the store's plants (read by list), equals the model, and holds the
 *   ETag of each plant's last reported change (the server's, by GET), none for a plant it did not
 *   see change.
 * SQLite always; PostgreSQL too (skipped with a line outside CI when none answers). The seed is
 * fixed (MODEL_SEED to change it, `random` for a new one; MODEL_RUNS for more runs).
 */

const SEED =
  process.env['MODEL_SEED'] === 'random'
    ? Math.floor(Math.random() * 2 ** 31)
    : Number(process.env['MODEL_SEED'] ?? 20261128);
const RUNS = Number(process.env['MODEL_RUNS'] ?? 20);
const PAGE = 3;

type Field<A> = { readonly kind: 'absent' } | { readonly kind: 'same' } | { readonly kind: 'set'; readonly value: A };
interface ImportLine {
  readonly kind: 'new' | 'present' | 'conflict';
  readonly pick: number;
  readonly name: string;
  readonly tag: string | undefined;
}
type Op =
  | { readonly kind: 'create'; readonly name: string; readonly tag: string | undefined; readonly chooseId: boolean }
  | { readonly kind: 'patch'; readonly pick: number; readonly name: Field<string>; readonly tag: Field<string | null> }
  | { readonly kind: 'delete'; readonly pick: number; readonly missing: boolean }
  | { readonly kind: 'import'; readonly lines: readonly ImportLine[] };

const nameArb = fc
  .array(fc.constantFrom('Fern', 'ivy', 'Ficus', 'é', 'ß', '🌵', ' ', '-', 'x', '"', 'Ω'), {
    minLength: 1,
    maxLength: 5,
  })
  .map((parts) => `p${parts.join('')}`);
const tagArb = fc.option(fc.constantFrom('shade', 'sun', 'herb', 'Shade', 'a b'), { nil: undefined });
const fieldArb = <A>(value: fc.Arbitrary<A>): fc.Arbitrary<Field<A>> =>
  fc.oneof(
    fc.constant({ kind: 'absent' } as const),
    fc.constant({ kind: 'same' } as const),
    value.map((v) => ({ kind: 'set', value: v }) as const),
  );
const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({ kind: fc.constant('create' as const), name: nameArb, tag: tagArb, chooseId: fc.boolean() }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('patch' as const),
      pick: fc.nat(),
      name: fieldArb(nameArb),
      tag: fieldArb(fc.option(fc.constantFrom('shade', 'sun', 'herb'), { nil: null })),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete' as const), pick: fc.nat(), missing: fc.boolean() }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('import' as const),
      lines: fc.array(
        fc.record({
          kind: fc.constantFrom('new', 'new', 'present', 'conflict'),
          pick: fc.nat(),
          name: nameArb,
          tag: tagArb,
        }),
        { minLength: 1, maxLength: 6 },
      ),
    }),
  },
);
const runArb = fc.record({
  before: fc.array(opArb, { minLength: 3, maxLength: 14 }),
  // Each runs just before the mirror asks for page `before` (0: the first); those past its last page, once it is ready.
  listing: fc.array(fc.record({ before: fc.nat({ max: 4 }), op: opArb }), { maxLength: 10 }),
  after: fc.array(opArb, { minLength: 1, maxLength: 12 }),
});

const plantOf = (id: number, name: string, tag: string | undefined): Plant =>
  (tag === undefined ? { id, name } : { id, name, tag }) as Plant;
const byId = (a: { readonly id: number }, b: { readonly id: number }) => a.id - b.id;
/** A change as the model can expect it: its type and data. */
const shapeOf = (change: Change) => ({ type: change.type, data: change.data });
type Shape = ReturnType<typeof shapeOf>;

interface Store {
  readonly url: string;
  readonly token: string;
  readonly dir: string;
}

/** Every change in the store's log, read as JSON pages. */
const changeLog = async (store: Store): Promise<Change[]> => {
  const log: Change[] = [];
  for (;;) {
    const answer = await fetch(`${store.url}/plants/changes?since=${log.at(-1)?.seq ?? 0}&limit=1000`, {
      headers: { authorization: `Bearer ${store.token}` },
    });
    const page = ChangePage.decode(await answer.json());
    if (E.isLeft(page)) throw new Error('the change log does not decode');
    if (page.right.length === 0) return log;
    log.push(...page.right);
  }
};

const everyPlant = async (client: PlantStoreClient): Promise<Plant[]> => {
  const plants: Plant[] = [];
  for await (const plant of client.plants.all({ limit: 1000 })) plants.push(plant);
  return plants;
};

/** The ids the store held after change `seq`, replayed from the log. */
const idsAt = (log: readonly Change[], seq: number): Set<number> => {
  const ids = new Set<number>();
  for (const change of log) {
    if (change.seq > seq) break;
    if (change.type === 'plant.deleted') ids.delete(change.data.id);
    else ids.add(change.data.id);
  }
  return ids;
};

/** A page the mirror read: where it started (`after`) and its X-Change-Seq. */
interface PageRead {
  readonly after: number;
  readonly changeSeq: number;
}

/** The changes list-then-follow applies, worked out from the log and the pages (docs/guides/changes.md). */
const expectedReports = (log: readonly Change[], pages: readonly PageRead[], last: number): Change[] => {
  const listedAt = new Map<number, number>();
  pages.forEach((page, i) => {
    const end = pages[i + 1]?.after ?? Number.POSITIVE_INFINITY;
    for (const id of idsAt(log, page.changeSeq)) if (id > page.after && id <= end) listedAt.set(id, page.changeSeq);
  });
  const first = pages[0]?.changeSeq ?? 0;
  return log.filter((c) => c.seq > first && c.seq <= last && !(c.seq <= (listedAt.get(c.data.id) ?? -1)));
};

const modelSuite = (storeName: string, store: () => Store) => {
  it(`keeps an exact copy through random writes, reporting what the model expects (${storeName})`, async () => {
    const { url, token } = store();
    const client = createPlantStoreClient({ baseUrl: url, token });
    // Chosen ids count down from here: below every id the server assigns (above the largest it has seen).
    let nextChosen = 2 ** 40;
    let runs = 0;
    let operations = 0;
    let imports = 0;
    // How often the interesting cases came up: writes between the mirror's pages, writes racing a
    // page's read, changes skipped.
    let interleaved = 0;
    let raced = 0;
    let skipped = 0;

    await fc.assert(
      fc.asyncProperty(runArb, async ({ before, listing, after }) => {
        runs += 1;
        for (const plant of await everyPlant(client)) await client.plants.delete(plant.id);
        const runStart = (await client.plants.list({ limit: 1 })).changeSeq ?? 0;
        const model = new Map<number, Plant>();
        const expected: Shape[][] = [];
        const pick = (n: number): Plant | undefined => [...model.values()].sort(byId)[n % Math.max(1, model.size)];

        const apply = async (op: Op): Promise<void> => {
          operations += 1;
          switch (op.kind) {
            case 'create': {
              const id = op.chooseId ? nextChosen-- : undefined;
              const created = await client.plants.create({
                name: op.name,
                ...(op.tag === undefined ? {} : { tag: op.tag }),
                ...(id === undefined ? {} : { id }),
              });
              const plant = plantOf(created.id, op.name, op.tag);
              model.set(plant.id, plant);
              return void expected.push([{ type: 'plant.created', data: plant }]);
            }
            case 'patch': {
              const current = pick(op.pick);
              if (current === undefined) return;
              const name =
                op.name.kind === 'absent' ? undefined : op.name.kind === 'same' ? current.name : op.name.value;
              const tag =
                op.tag.kind === 'absent' ? undefined : op.tag.kind === 'same' ? (current.tag ?? null) : op.tag.value;
              const updated = await client.plants.update(current.id, {
                ...(name === undefined ? {} : { name }),
                ...(tag === undefined ? {} : { tag }),
              });
              const plant = plantOf(
                current.id,
                name ?? current.name,
                tag === undefined ? current.tag : (tag ?? undefined),
              );
              expect(updated).toEqual(plant);
              model.set(plant.id, plant);
              const changed = plant.name !== current.name || plant.tag !== current.tag;
              return void expected.push(changed ? [{ type: 'plant.updated', data: plant }] : []);
            }
            case 'delete': {
              const target = op.missing ? undefined : pick(op.pick);
              if (target === undefined) {
                await expect(client.plants.delete(nextChosen--)).rejects.toBeInstanceOf(NotFoundError);
                return;
              }
              await client.plants.delete(target.id);
              model.delete(target.id);
              return void expected.push([{ type: 'plant.deleted', data: { id: target.id } as Change['data'] }]);
            }
            case 'import': {
              const lines = op.lines.map((line) => {
                const existing = line.kind === 'new' ? undefined : pick(line.pick);
                if (existing === undefined)
                  return { kind: 'new' as const, plant: plantOf(nextChosen--, line.name, line.tag) };
                if (line.kind === 'present') return { kind: 'present' as const, plant: existing };
                return { kind: 'conflict' as const, plant: plantOf(existing.id, `${existing.name}!`, existing.tag) };
              });
              // Import's keys come from the file's bytes: a blank first line of its own length makes
              // each file new, so that no line replays an earlier file's answer (replays are
              // cli-import-export's subject, not this model's).
              imports += 1;
              const file = join(store().dir, `import-${imports}.jsonl`);
              const text = lines.map(({ plant }) => `${JSON.stringify(plant)}\n`).join('');
              await writeFile(file, `${' '.repeat(imports)}\n${text}`);
              const result = await runNode(paths.clientCli, ['import', file, '--concurrency', '4'], {
                PLANT_STORE_URL: url,
                PLANT_STORE_TOKEN: token,
              });
              const count = (kind: string) => lines.filter((line) => line.kind === kind).length;
              expect(result.stderr).toContain(
                `created ${count('new')}, replayed 0, already present ${count('present')}, failed ${count('conflict')}`,
              );
              expect(result.code).toBe(count('conflict') > 0 ? 1 : 0);
              const created = lines.filter((line) => line.kind === 'new').map(({ plant }) => plant);
              for (const plant of created) model.set(plant.id, plant);
              return void expected.push(created.map((plant) => ({ type: 'plant.created', data: plant })));
            }
          }
        };

        for (const op of before) await apply(op);

        // The mirror's client records each list page it reads, and before asking for one makes the
        // writes of the listing phase meant to land there: all but the last one before the page's
        // request is sent, the last one beside it, racing the page's read (it may commit while the
        // server reads the page: a page and its X-Change-Seq from two snapshots would show).
        const pages: PageRead[] = [];
        let pagesAsked = 0;
        let racing: Promise<void> | undefined;
        const mirrorClient = createPlantStoreClient({
          baseUrl: url,
          token,
          hooks: {
            beforeRequest: [
              async (request) => {
                if (new URL(request.url).pathname !== '/plants') return;
                const page = pagesAsked++;
                const writes = listing.filter((write) => write.before === page);
                for (const write of writes.slice(0, -1)) await apply(write.op);
                const last = writes.at(-1);
                if (last === undefined) return;
                racing = apply(last.op);
                racing.catch(() => undefined); // awaited (and so reported) once the page is in
                raced += 1;
              },
            ],
            afterResponse: [
              async ({ request, headers }) => {
                const target = new URL(request.url);
                if (target.pathname !== '/plants') return;
                pages.push({
                  after: Number(target.searchParams.get('after') ?? 0),
                  changeSeq: Number(headers['x-change-seq']),
                });
                // The racing write ends before the next page's writes begin: writes stay in order.
                const write = racing;
                racing = undefined;
                await write;
              },
            ],
          },
        });
        const reported: Change[] = [];
        const mirror: PlantMirror = mirrorClient.plants.mirror({
          limit: PAGE,
          onChange: (change) => void reported.push(change),
        });
        try {
          await mirror.ready;
          await racing;
          for (const write of listing) if (write.before >= pagesAsked) await apply(write.op);
          for (const op of after) await apply(op);

          const last = (await client.plants.list({ limit: 1 })).changeSeq ?? 0;
          await until('the mirror to reach the store', () => mirror.position >= last, 10_000, {
            everyMs: 10,
            detail: () => `the mirror stayed at ${mirror.position}, the store is at ${last}`,
          });

          // The log of this run is what the model expects.
          const log = await changeLog(store());
          const runLog = log.filter((change) => change.seq > runStart);
          expect(runLog.at(-1)?.seq ?? runStart).toBe(last);
          let at = 0;
          for (const group of expected) {
            const got = runLog.slice(at, at + group.length).map(shapeOf);
            at += group.length;
            expect(got.sort((a, b) => byId(a.data, b.data))).toEqual([...group].sort((a, b) => byId(a.data, b.data)));
          }
          expect(at).toBe(runLog.length);

          // The mirror reported what list-then-follow applies, and holds the store.
          expect(reported).toEqual(expectedReports(log, pages, last));
          if (new Set(pages.map((page) => page.changeSeq)).size > 1) interleaved += 1;
          skipped += log.filter((c) => c.seq > (pages[0]?.changeSeq ?? 0)).length - reported.length;
          const stored = await everyPlant(client);
          const copied = [...mirror.plants.values()].sort(byId);
          expect(copied).toEqual(stored);
          expect(copied).toEqual([...model.values()].sort(byId));
          const lastReported = new Map(reported.map((change) => [change.data.id, change]));
          for (const plant of copied) {
            const change = lastReported.get(plant.id);
            if (change === undefined) expect(plant.etag).toBeUndefined();
            else {
              const etag = 'etag' in change ? change.etag : undefined;
              expect([plant.etag, etag]).toEqual([(await client.plants.get(plant.id)).etag, plant.etag]);
            }
          }
        } finally {
          await mirror.close();
        }
        await expect(mirror.done).resolves.toBeUndefined();
      }),
      { seed: SEED, numRuns: RUNS },
    );
    console.log(
      `changes-mirror model (${storeName}): ${runs} runs, ${operations} operations, ${interleaved} runs with writes between pages, ${raced} writes racing a page's read, ${skipped} changes skipped, seed ${SEED}`,
    );
    // The cases the model is for, on every line (the lines run the first runs of the same seed).
    expect(interleaved, "runs with writes between the mirror's pages").toBeGreaterThan(0);
    expect(raced, "writes racing a page's read").toBeGreaterThan(0);
  }, 300_000);
};

describe('plants.mirror against the real server on SQLite', () => {
  const live = useLiveServer();
  modelSuite('sqlite', () => ({ url: live.server.url, token: live.token, dir: live.dir }));
});

describePostgres('plants.mirror against the real server on PostgreSQL', () => {
  let database: FreshPostgres;
  let server: ServerProcess;
  let dir: { path: string; remove(): Promise<void> };
  let token: string;
  beforeAll(async () => {
    database = await freshPostgresUrl();
    dir = await tempDir('changes-mirror');
    token = await createToken(database.url, 'changes-mirror');
    server = await startServer({ DATABASE_URL: database.url });
  });
  afterAll(async () => {
    await server?.stop();
    await database?.drop();
    await dir?.remove();
  });
  modelSuite('postgresql', () => ({ url: server.url, token, dir: dir.path }));
});
