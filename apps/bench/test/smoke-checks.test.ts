import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCeilingServer, type CeilingServer } from '../src/ceiling-server.js';
import { smokeCheckPatch, smokeCheckTagPage } from '../src/seed.js';
import { MIN_TAGGED_SIZE, tagOf } from '../src/tag-pages.js';

// The checks run before the load of patch and list-tag, against the ceiling holding a tagged
// store as the bench writes it (src/tag-pages.ts), and against a server that gets PATCH wrong.
const TOKEN = 'tag-pages-test-token-0123456789';
const SIZE = MIN_TAGGED_SIZE;
let ceiling: CeilingServer;
let base: string;
const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };

beforeAll(async () => {
  ceiling = createCeilingServer(TOKEN);
  await new Promise<void>((resolve) => ceiling.server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(ceiling.server.address() as AddressInfo).port}`;
  for (let id = 1; id <= SIZE; id++) {
    const res = await fetch(`${base}/plants`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ id, name: `p${id}`, tag: tagOf(id) }),
    });
    if (res.status !== 201) throw new Error(`seeding ${id}: ${res.status}`);
  }
});

afterAll(async () => {
  ceiling.server.closeAllConnections();
  await new Promise<void>((resolve) => ceiling.server.close(() => resolve()));
});

describe('smokeCheckTagPage', () => {
  it('passes a store whose tag pages hold exactly the tagged plants', async () => {
    await expect(smokeCheckTagPage(base, TOKEN, SIZE)).resolves.toBeUndefined();
  });

  it('fails when a page the load asks for misses a plant', async () => {
    const res = await fetch(`${base}/plants/${SIZE - 500}`, {
      method: 'PATCH',
      headers,
      body: JSON.stringify({ tag: 'tag-1' }),
    });
    expect(res.status).toBe(200);
    await expect(smokeCheckTagPage(base, TOKEN, SIZE)).rejects.toThrow(
      /without the 100 plants tagged tag-0 from 1010 to 2000/,
    );
  });
});

describe('smokeCheckPatch', () => {
  it('passes a server whose PATCH renames the plant and keeps its tag', async () => {
    await expect(smokeCheckPatch(base, TOKEN, 7)).resolves.toBeUndefined();
    const plant = await (await fetch(`${base}/plants/7`, { headers })).json();
    expect(plant).toEqual({ id: 7, name: 'smoke check patch 7', tag: tagOf(7) });
  });

  it('fails a server that answers 200 to a PATCH without changing the plant', async () => {
    const plant = JSON.stringify({ id: 3, name: 'unchanged' });
    const server = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json', etag: '"1"' }).end(plant);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      await expect(smokeCheckPatch(url, TOKEN, 3)).rejects.toThrow(
        /PATCH \/plants\/3 \{"name"\} answered 200 without the plant renamed/,
      );
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
