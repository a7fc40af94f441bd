import http from 'node:http';
import {
  createPlantStoreClient,
  NotFoundError,
  type Change,
  type Plant,
  type PlantMirror,
  type PlantStoreClient,
} from '@plant-store/client';
import { describePostgres, freshPostgresUrl, type FreshPostgres, until } from '@plant-store/testkit';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type ServerProcess } from './support/processes.js';
import { useLiveServer } from './support/store.js';
import { createToken } from './support/token.js';

/*
 * A model test of a feed of one tag (GET /plants/changes?tag=T) against the real server: random
 * creates (server-assigned and chosen ids), patches that move plants in and out of the tag (and
 * between tags that differ from it only in case or by a space), and deletes run through the API in
 * three phases — before a `plants.mirror({ tag })` starts, while it lists (each write just before
 * the page it names, the last one racing the page's read), and after it is ready. At the end:
 * - the whole log of the run is what the model expects;
 * - the feed of the tag, read as JSON pages (small ones, following each Link) and as a stream, is
 *   the model's projection of the whole log, byte for byte: the changes of plants that had the tag
 *   before or after them, `plant.left` where one left; the pages' Links and the stream's ids only
 *   move forward, and both reach the newest number (an empty page, a bookmark);
 * - the mirror of the tag reported exactly the changes list-then-follow applies to the feed of the
 *   tag, and holds exactly the store's plants with the tag (read by list) and the model's.
 * SQLite always; PostgreSQL too (skipped with a line outside CI when none answers). The seed is
 * fixed (MODEL_SEED to change it, `random` for a new one; MODEL_RUNS for more runs).
 */

const SEED =
  process.env['MODEL_SEED'] === 'random'
    ? Math.floor(Math.random() * 2 ** 31)
    : Number(process.env['MODEL_SEED'] ?? 20261129);
const RUNS = Number(process.env['MODEL_RUNS'] ?? 15);
const PAGE = 2;
const T = 'shade';
/** The server's heartbeat here: a stream bookmarks at least this often while its tag is quiet. */
const HEARTBEAT_MS = 1000;

type Field<A> = { readonly kind: 'absent' } | { readonly kind: 'same' } | { readonly kind: 'set'; readonly value: A };
type Op =
  | { readonly kind: 'create'; readonly name: string; readonly tag: string | undefined; readonly chooseId: boolean }
  | { readonly kind: 'patch'; readonly pick: number; readonly name: Field<string>; readonly tag: Field<string | null> }
  | { readonly kind: 'delete'; readonly pick: number; readonly missing: boolean };

// The tag most of the time (so that plants enter and leave it often), and tags that differ from it only a little.
const tags = [T, T, T, 'sun', 'Shade', 'shade '] as const;
const nameArb = fc
  .array(fc.constantFrom('Fern', 'ivy', 'é', '🌵', ' ', '"', 'x'), { minLength: 1, maxLength: 4 })
  .map((parts) => `p${parts.join('')}`);
const fieldArb = <A>(value: fc.Arbitrary<A>): fc.Arbitrary<Field<A>> =>
  fc.oneof(
    fc.constant({ kind: 'absent' } as const),
    fc.constant({ kind: 'same' } as const),
    value.map((v) => ({ kind: 'set', value: v }) as const),
  );
const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('create' as const),
      name: nameArb,
      tag: fc.option(fc.constantFrom(...tags), { nil: undefined, freq: 5 }),
      chooseId: fc.boolean(),
    }),
  },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('patch' as const),
      pick: fc.nat(),
      name: fieldArb(nameArb),
      tag: fieldArb(fc.option(fc.constantFrom(...tags), { nil: null })),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete' as const), pick: fc.nat(), missing: fc.boolean() }) },
);
const runArb = fc.record({
  before: fc.array(opArb, { minLength: 4, maxLength: 16 }),
  // Each runs just before the mirror asks for page `before` (0: the first); those past its last page, once it is ready.
  listing: fc.array(fc.record({ before: fc.nat({ max: 3 }), op: opArb }), { maxLength: 8 }),
  after: fc.array(opArb, { minLength: 1, maxLength: 10 }),
});

const plantOf = (id: number, name: string, tag: string | undefined): Plant =>
  (tag === undefined ? { id, name } : { id, name, tag }) as Plant;
const byId = (a: { readonly id: number }, b: { readonly id: number }) => a.id - b.id;

interface Store {
  readonly url: string;
  readonly token: string;
}

/** One element of a feed: its bytes and what they say. */
interface Shown {
  readonly text: string;
  readonly change: Change;
}

/** The elements of a JSON page of changes, as the bytes the server wrote them. */
const elementsOf = (text: string): Shown[] =>
  text === '[]'
    ? []
    : text
        .slice(1, -1)
        .split(/,(?={"seq")/)
        .map((element) => ({ text: element, change: JSON.parse(element) as Change }));

/** A page of the feed and its Link's `since`. */
const readPage = async (store: Store, query: string): Promise<{ shown: Shown[]; next: URLSearchParams }> => {
  const answer = await fetch(`${store.url}/plants/changes?${query}`, {
    headers: { authorization: `Bearer ${store.token}` },
  });
  expect(answer.status).toBe(200);
  const link = /^<\/plants\/changes\?([^>]*)>; rel="next"$/.exec(answer.headers.get('link') ?? '');
  expect(link, `the Link of ${query}`).not.toBeNull();
  return { shown: elementsOf(await answer.text()), next: new URLSearchParams(link?.[1]) };
};

/** Every change of the whole feed above `since`, as JSON pages. */
const wholeLog = async (store: Store, since: number): Promise<Shown[]> => {
  const log: Shown[] = [];
  for (let from = since; ;) {
    const { shown } = await readPage(store, `since=${from}&limit=1000`);
    if (shown.length === 0) return log;
    log.push(...shown);
    from = shown.at(-1)?.change.seq ?? from;
  }
};

/**
 * The feed of tag `tag` as the model derives it from the whole log of a run that started with no
 * plant: the changes of plants with the tag before or after them, `plant.left` (its number and
 * time, the id alone) for one that left, every other change's bytes as they are.
 */
const projection = (log: readonly Shown[], tag: string): string[] => {
  const tagOf = new Map<number, string | undefined>();
  const shown: string[] = [];
  for (const { text, change } of log) {
    const before = tagOf.get(change.data.id);
    const after = change.type === 'plant.deleted' || change.type === 'plant.left' ? undefined : change.data.tag;
    if (change.type === 'plant.deleted') tagOf.delete(change.data.id);
    else tagOf.set(change.data.id, after);
    if (after === tag) shown.push(text);
    else if (before === tag)
      shown.push(
        change.type === 'plant.deleted'
          ? text
          : `{"seq":${change.seq},"type":"plant.left","timestamp":"${change.timestamp}","data":{"id":${change.data.id}}}`,
      );
  }
  return shown;
};

/** The ids a feed of one tag holds after change `seq`, replayed from it: a plant.left or a delete takes one out. */
const idsAt = (feed: readonly Change[], seq: number): Set<number> => {
  const ids = new Set<number>();
  for (const change of feed) {
    if (change.seq > seq) break;
    if (change.type === 'plant.deleted' || change.type === 'plant.left') ids.delete(change.data.id);
    else ids.add(change.data.id);
  }
  return ids;
};

interface PageRead {
  readonly after: number;
  readonly changeSeq: number;
}

/** The changes list-then-follow applies to the feed of the tag, from its pages (docs/guides/changes.md). */
const expectedReports = (feed: readonly Change[], pages: readonly PageRead[], last: number): Change[] => {
  const listedAt = new Map<number, number>();
  pages.forEach((page, i) => {
    const end = pages[i + 1]?.after ?? Number.POSITIVE_INFINITY;
    for (const id of idsAt(feed, page.changeSeq)) if (id > page.after && id <= end) listedAt.set(id, page.changeSeq);
  });
  const first = pages[0]?.changeSeq ?? 0;
  return feed.filter((c) => c.seq > first && c.seq <= last && !(c.seq <= (listedAt.get(c.data.id) ?? -1)));
};

/** The stream of the tag from `since`, read until an event's id reaches `last` (a change or a bookmark). */
const readStream = (store: Store, since: number, tag: string, last: number) =>
  new Promise<{ id: string; event: string; data: string }[]>((resolve, reject) => {
    const events: { id: string; event: string; data: string }[] = [];
    const query = new URLSearchParams({ since: String(since), tag }).toString();
    const req = http.get(
      `${store.url}/plants/changes?${query}`,
      { headers: { accept: 'text/event-stream', authorization: `Bearer ${store.token}` } },
      (res) => {
        let buffered = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffered += chunk;
          let end: number;
          while ((end = buffered.indexOf('\n\n')) !== -1) {
            const fields = Object.fromEntries(
              buffered
                .slice(0, end)
                .split('\n')
                .filter((line) => !line.startsWith(':') && !line.startsWith('retry: '))
                .map((line) => [line.slice(0, line.indexOf(': ')), line.slice(line.indexOf(': ') + 2)]),
            ) as { id?: string; event?: string; data?: string };
            buffered = buffered.slice(end + 2);
            if (fields.id === undefined) continue;
            events.push({ id: fields.id, event: fields.event ?? '', data: fields.data ?? '' });
            if (Number(fields.id) >= last) {
              req.destroy();
              resolve(events);
            }
          }
        });
      },
    );
    req.on('error', (error) => (events.length > 0 && Number(events.at(-1)?.id) >= last ? undefined : reject(error)));
    if (since >= last) {
      req.destroy();
      resolve(events);
    }
  });

const everyPlant = async (client: PlantStoreClient): Promise<Plant[]> => {
  const plants: Plant[] = [];
  for await (const plant of client.plants.all({ limit: 1000 })) plants.push(plant);
  return plants;
};

const modelSuite = (storeName: string, store: () => Store) => {
  it(`follows one tag exactly, as pages, a stream and a mirror, through random writes (${storeName})`, async () => {
    const { url, token } = store();
    const client = createPlantStoreClient({ baseUrl: url, token });
    let nextChosen = 2 ** 40;
    const counts = { runs: 0, operations: 0, shown: 0, left: 0, raced: 0, bookmarks: 0, interleaved: 0 };

    await fc.assert(
      fc.asyncProperty(runArb, async ({ before, listing, after }) => {
        counts.runs += 1;
        for (const plant of await everyPlant(client)) await client.plants.delete(plant.id);
        const runStart = (await client.plants.list({ limit: 1 })).changeSeq ?? 0;
        const model = new Map<number, Plant>();
        /** Per write, the change it must make (none: a patch that changed nothing, a missing delete). */
        const expected: { type: string; data: unknown }[] = [];
        const pick = (n: number): Plant | undefined => [...model.values()].sort(byId)[n % Math.max(1, model.size)];

        const apply = async (op: Op): Promise<void> => {
          counts.operations += 1;
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
              return void expected.push({ type: 'plant.created', data: plant });
            }
            case 'patch': {
              const current = pick(op.pick);
              if (current === undefined) return;
              const name =
                op.name.kind === 'absent' ? undefined : op.name.kind === 'same' ? current.name : op.name.value;
              const tag =
                op.tag.kind === 'absent' ? undefined : op.tag.kind === 'same' ? (current.tag ?? null) : op.tag.value;
              await client.plants.update(current.id, {
                ...(name === undefined ? {} : { name }),
                ...(tag === undefined ? {} : { tag }),
              });
              const plant = plantOf(
                current.id,
                name ?? current.name,
                tag === undefined ? current.tag : (tag ?? undefined),
              );
              model.set(plant.id, plant);
              if (plant.name !== current.name || plant.tag !== current.tag)
                expected.push({ type: 'plant.updated', data: plant });
              return;
            }
            case 'delete': {
              const target = op.missing ? undefined : pick(op.pick);
              if (target === undefined) {
                await expect(client.plants.delete(nextChosen--)).rejects.toBeInstanceOf(NotFoundError);
                return;
              }
              await client.plants.delete(target.id);
              model.delete(target.id);
              return void expected.push({ type: 'plant.deleted', data: { id: target.id } });
            }
          }
        };

        for (const op of before) await apply(op);

        // The mirror's list pages, each preceded by the listing writes meant for it, the last one
        // racing the page's read (as in changes-mirror.e2e.test.ts).
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
                counts.raced += 1;
              },
            ],
            afterResponse: [
              async ({ request, headers }) => {
                const target = new URL(request.url);
                if (target.pathname !== '/plants') return;
                expect(target.searchParams.get('tag')).toBe(T);
                pages.push({
                  after: Number(target.searchParams.get('after') ?? 0),
                  changeSeq: Number(headers['x-change-seq']),
                });
                const write = racing;
                racing = undefined;
                await write;
              },
            ],
          },
        });
        const reported: Change[] = [];
        const mirror: PlantMirror = mirrorClient.plants.mirror({
          tag: T,
          limit: PAGE,
          onChange: (change) => void reported.push(change),
        });
        try {
          await mirror.ready;
          await racing;
          for (const write of listing) if (write.before >= pagesAsked) await apply(write.op);
          for (const op of after) await apply(op);
          const last = (await client.plants.list({ limit: 1 })).changeSeq ?? 0;

          // The whole log of the run is what the model expects.
          const log = await wholeLog(store(), runStart);
          expect(log.map(({ change }) => ({ type: change.type, data: change.data }))).toEqual(expected);
          expect(log.at(-1)?.change.seq ?? runStart).toBe(last);
          const feed = projection(log, T);
          counts.shown += feed.length;
          counts.left += feed.filter((text) => text.includes('"type":"plant.left"')).length;

          // As JSON pages of PAGE, following each Link: the projection, and Links that only move forward.
          const paged: string[] = [];
          let query = new URLSearchParams({ since: String(runStart), tag: T, limit: String(PAGE) });
          for (;;) {
            const { shown, next } = await readPage(store(), query.toString());
            paged.push(...shown.map((s) => s.text));
            expect(next.get('tag')).toBe(T);
            expect(Number(next.get('since'))).toBeGreaterThanOrEqual(Number(query.get('since')));
            if (shown.length === 0) {
              // An empty page stands at the newest number, past every change it did not show.
              expect(Number(next.get('since'))).toBe(last);
              break;
            }
            query = next;
          }
          expect(paged).toEqual(feed);

          // As a stream: the projection, then (when the last change is not of the tag) a bookmark at the newest number.
          const events = await readStream(store(), runStart, T, last);
          const ids = events.map((e) => Number(e.id));
          expect(ids).toEqual([...new Set(ids)].sort((a, b) => a - b));
          expect(events.filter((e) => e.event !== 'bookmark').map((e) => e.data)).toEqual(feed);
          for (const e of events.filter((e) => e.event !== 'bookmark'))
            expect(e.event).toBe((JSON.parse(e.data) as Change).type);
          for (const e of events.filter((e) => e.event === 'bookmark')) {
            expect(e.data).toBe(`{"seq":${e.id}}`);
            counts.bookmarks += 1;
          }
          if (last > runStart) expect(ids.at(-1)).toBe(last);

          // The mirror of the tag: it reaches the newest number (its bookmarks move it), reported
          // what list-then-follow applies to the feed, and holds exactly the plants with the tag.
          await until('the mirror to reach the store', () => mirror.position >= last, 5 * HEARTBEAT_MS + 10_000, {
            everyMs: 10,
            detail: () => `the mirror stayed at ${mirror.position}, the store is at ${last}`,
          });
          const tagFeed = feed.map((text) => JSON.parse(text) as Change);
          expect(reported).toEqual(expectedReports(tagFeed, pages, last));
          if (new Set(pages.map((page) => page.changeSeq)).size > 1) counts.interleaved += 1;
          const ofTag = (await everyPlant(client)).filter((plant) => plant.tag === T);
          const copied = [...mirror.plants.values()].sort(byId);
          expect(copied).toEqual(ofTag);
          expect(copied).toEqual([...model.values()].filter((plant) => plant.tag === T).sort(byId));
        } finally {
          await mirror.close();
        }
        await expect(mirror.done).resolves.toBeUndefined();
      }),
      { seed: SEED, numRuns: RUNS },
    );
    console.log(
      `changes-tag model (${storeName}): ${counts.runs} runs, ${counts.operations} operations, ${counts.shown} changes of the tag (${counts.left} plant.left), ${counts.bookmarks} bookmarks, ${counts.raced} writes racing a page's read, ${counts.interleaved} runs with writes between pages, seed ${SEED}`,
    );
    // The cases the model is for.
    expect(counts.left, 'plants that left the tag').toBeGreaterThan(0);
    expect(counts.bookmarks, 'bookmarks of a quiet tag').toBeGreaterThan(0);
    expect(counts.raced, "writes racing a page's read").toBeGreaterThan(0);
    expect(counts.interleaved, "runs with writes between the mirror's pages").toBeGreaterThan(0);
  }, 600_000);
};

const ENV = { CHANGES_HEARTBEAT_MS: String(HEARTBEAT_MS) };

describe('a feed of one tag against the real server on SQLite', () => {
  const live = useLiveServer(ENV);
  modelSuite('sqlite', () => ({ url: live.server.url, token: live.token }));
});

describePostgres('a feed of one tag against the real server on PostgreSQL', () => {
  let database: FreshPostgres;
  let server: ServerProcess;
  let token: string;
  beforeAll(async () => {
    database = await freshPostgresUrl();
    token = await createToken(database.url, 'changes-tag');
    server = await startServer({ DATABASE_URL: database.url, ...ENV });
  });
  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });
  modelSuite('postgresql', () => ({ url: server.url, token }));
});
