import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { compareCodePoints, fold } from '@plant-store/domain';
import { afterEach, describe, expect, it } from 'vitest';
import { smokeCheckSearchPages } from '../src/search-checks.js';
import { nameOf } from '../src/search-pages.js';
import { MIN_TAGGED_SIZE, tagOf } from '../src/tag-pages.js';

// The checks run before the load of the searched, sorted and counted pages, against a small
// server that answers those pages as the API reference says (keyset pages, an opaque cursor, the
// count on request), holding a tagged store as the bench writes it; and against servers that get
// one thing wrong.
const TOKEN = 'search-checks-test-token-0123456789';
const SIZE = MIN_TAGGED_SIZE;
const KINDS = ['list-name', 'list-name-desc', 'list-id-desc', 'list-q', 'count', 'count-tag'] as const;

interface Faults {
  /** Orders names without folding them. */
  readonly unfolded?: boolean;
  /** Counts one plant too many. */
  readonly countOff?: boolean;
  /** Counts every page, asked or not. */
  readonly alwaysCount?: boolean;
  /** Drops the cursor from the next page's Link. */
  readonly noCursor?: boolean;
}

interface Plant {
  readonly id: number;
  readonly name: string;
  readonly tag: string;
}

const plants: readonly Plant[] = Array.from({ length: SIZE }, (_, i) => ({
  id: i + 1,
  name: nameOf(i + 1),
  tag: tagOf(i + 1),
}));

const startServer = async (faults: Faults = {}): Promise<{ url: string; server: Server }> => {
  const key = (p: Plant): string => (faults.unfolded === true ? p.name : fold(p.name));
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const q = url.searchParams;
    const sort = q.get('sort') ?? 'id';
    const limit = Number(q.get('limit') ?? '100');
    const after = Number(q.get('after') ?? '0');
    const search = q.get('q');
    const matching = plants.filter(
      (p) => (q.get('tag') === null || p.tag === q.get('tag')) && (search === null || key(p).includes(fold(search))),
    );
    const sign = sort.startsWith('-') ? -1 : 1;
    const ordered = [...matching].sort((a, b) =>
      sort.endsWith('name') ? sign * (compareCodePoints(key(a), key(b)) || a.id - b.id) : sign * (a.id - b.id),
    );
    let start = 0;
    if (sort.endsWith('name') && q.get('cursor') !== null) {
      const [name, id] = JSON.parse(Buffer.from(q.get('cursor') ?? '', 'base64url').toString()) as [string, number];
      start = ordered.findIndex((p) => sign * (compareCodePoints(key(p), name) || p.id - id) > 0);
    } else if (!sort.endsWith('name') && after > 0) {
      start = ordered.findIndex((p) => sign * (p.id - after) > 0);
    }
    const page = start < 0 ? [] : ordered.slice(start, start + limit);
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    const last = page.at(-1);
    if (page.length === limit && last !== undefined) {
      const next = new URLSearchParams(q);
      next.delete('after');
      next.delete('cursor');
      if (sort.endsWith('name')) {
        if (faults.noCursor !== true)
          next.set('cursor', Buffer.from(JSON.stringify([key(last), last.id])).toString('base64url'));
      } else next.set('after', String(last.id));
      headers['link'] = `</plants?${next.toString()}>; rel="next"`;
    }
    if (req.headers['prefer'] === 'count=exact' || faults.alwaysCount === true) {
      headers['x-total-count'] = String(matching.length + (faults.countOff === true ? 1 : 0));
      headers['preference-applied'] = 'count=exact';
    }
    res.writeHead(200, headers).end(JSON.stringify(page));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
};

let running: Server | undefined;
afterEach(async () => {
  running?.closeAllConnections();
  await new Promise<void>((resolve) => running?.close(() => resolve()) ?? resolve());
  running = undefined;
});

const check = async (faults?: Faults, warn: (line: string) => void = () => undefined) => {
  const { url, server } = await startServer(faults);
  running = server;
  return smokeCheckSearchPages(url, TOKEN, SIZE, KINDS, warn);
};

describe('smokeCheckSearchPages', () => {
  it('passes a store that answers every page exactly, and pools paths across its middle', async () => {
    const pools = await check();
    expect(Object.keys(pools).sort()).toEqual([...KINDS].sort());
    // Name cursors met from a quarter to half way through the store.
    expect(pools['list-name']?.length).toBeGreaterThan(10);
    for (const path of pools['list-name'] ?? []) expect(path).toMatch(/^\/plants\?sort=name&limit=100&cursor=[\w-]+$/);
    for (const path of pools['list-name-desc'] ?? []) expect(path).toMatch(/^\/plants\?sort=-name&limit=100&cursor=/);
    const afters = (pools['list-id-desc'] ?? []).map((p) => Number(/after=(\d+)$/.exec(p)?.[1]));
    expect(Math.min(...afters)).toBeGreaterThanOrEqual(SIZE / 4);
    expect(Math.max(...afters)).toBeLessThanOrEqual((3 * SIZE) / 4);
    expect(pools['list-q']?.[0]).toMatch(/^\/plants\?q=fern&limit=100&after=\d+$/);
    expect(pools['count']).toEqual(['/plants?limit=100']);
    expect(pools['count-tag']).toEqual(['/plants?tag=tag-0&limit=100']);
  });

  it('fails a name order taken on the names rather than their folds', async () => {
    await expect(check({ unfolded: true })).rejects.toThrow(
      /GET \/plants\?sort=name&limit=\d+ answered 200 without the/,
    );
  });

  it('fails a wrong count, and a count nobody asked for', async () => {
    await expect(check({ countOff: true })).rejects.toThrow(/X-Total-Count 2001/);
    await expect(check({ alwaysCount: true })).rejects.toThrow(/without Prefer answered an X-Total-Count/);
  });

  it('fails a name page whose Link has no cursor', async () => {
    await expect(check({ noCursor: true })).rejects.toThrow(/lacks sort=name and a cursor/);
  });
});
