import {
  AbortError,
  BadRequestError,
  ConflictError,
  ConnectionError,
  createPlantStoreClient,
  ForbiddenError,
  IdempotencyKeyReusedError,
  NotFoundError,
  PayloadTooLargeError,
  PlantStoreError,
  ServerError,
  ServiceUnavailableError,
  TimeoutError,
  UnauthorizedError,
  UnexpectedResponseError,
  UnsupportedMediaTypeError,
  ValidationError,
} from '@plant-store/client';
import Database from 'better-sqlite3';
import * as E from 'fp-ts/lib/Either.js';
import { once } from 'node:events';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { freePort } from './support/processes.js';
import { useLiveServer } from './support/store.js';

const live = useLiveServer();
const client = (options: Partial<Parameters<typeof createPlantStoreClient>[0]> = {}) =>
  createPlantStoreClient({ baseUrl: live.server.url, token: live.token, retry: { limit: 0 }, ...options });

/**
 * Runs `use` with the base URL of a proxy in front of the live server: every request is forwarded
 * as it is, and `answer` writes the server's answer (or does not) to the client.
 */
const throughProxy = async (
  answer: (req: IncomingMessage, upstream: IncomingMessage, res: ServerResponse) => void,
  use: (baseUrl: string) => Promise<void>,
): Promise<void> => {
  const target = new URL(live.server.url);
  const proxy: Server = createServer((req, res) => {
    const forward = request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
      (upstream) => answer(req, upstream, res),
    );
    req.pipe(forward);
  });
  proxy.listen(0, '127.0.0.1');
  await once(proxy, 'listening');
  try {
    await use(`http://127.0.0.1:${(proxy.address() as { port: number }).port}`);
  } finally {
    proxy.closeAllConnections();
    proxy.close();
  }
};

/** Rejects with the error `promise` rejects with, or fails the test when it resolves. */
const failure = async (promise: Promise<unknown>): Promise<PlantStoreError> => {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(PlantStoreError);
    return error as PlantStoreError;
  }
  throw new Error('expected the call to fail');
};

describe('the client against the real server', () => {
  it('creates, reads, lists and deletes plants', async () => {
    const plants = client().plants;
    const fern = await plants.create({ name: 'Fern', tag: 'green' });
    expect(fern).toEqual({ id: expect.any(Number), name: 'Fern', tag: 'green' });
    const chosen = await plants.create({ id: 4242, name: 'Cactus 🌵' });
    expect(chosen).toEqual({ id: 4242, name: 'Cactus 🌵' });
    expect(await plants.get(fern.id)).toEqual(fern);
    expect(await plants.get(4242)).toEqual({ id: 4242, name: 'Cactus 🌵' });

    const page = await plants.list({ limit: 1 });
    expect(page.plants).toEqual([fern]);
    expect(page.next).toEqual({ limit: 1, after: fern.id });

    await plants.delete(4242);
    await expect(plants.get(4242)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('a server-assigned id never collides with a client-chosen one', async () => {
    const plants = client().plants;
    const high = await plants.create({ id: 900_000, name: 'High' });
    const next = await plants.create({ name: 'Next' });
    expect(next.id).not.toBe(high.id);
    expect(await plants.get(next.id)).toEqual(next);
  });

  it('iterates every page through all()', async () => {
    const plants = client().plants;
    const created = [];
    for (let i = 0; i < 7; i++) created.push(await plants.create({ name: `paged ${i}`, tag: 'paged' }));
    const seen = [];
    for await (const plant of plants.all({ limit: 2 })) if (plant.tag === 'paged') seen.push(plant);
    expect(seen).toEqual(created);
  });

  it('offers the same operations as TaskEither', async () => {
    const fp = client().fp.plants;
    const created = await fp.create({ name: 'Functional' })();
    expect(E.isRight(created)).toBe(true);
    if (E.isLeft(created)) return;
    expect(await fp.get(created.right.id)()).toEqual(E.right(created.right));
    expect(await fp.delete(created.right.id)()).toEqual(E.right(undefined));
    const missing = await fp.get(created.right.id)();
    expect(E.isLeft(missing) && missing.left).toBeInstanceOf(NotFoundError);
  });
});

describe('createMany against the real server', () => {
  it('stores an array in one transaction and answers its plants in order, with their ids', async () => {
    const { plants } = client();
    const stored = await plants.createMany(
      [{ name: 'many a', tag: 'many' }, { id: 770_001, name: 'many b' }, { name: 'many c' }],
      {
        idempotencyKey: 'e2e-many-1',
      },
    );
    expect(stored.map(({ id: _id, ...rest }) => rest)).toEqual([
      { name: 'many a', tag: 'many' },
      { name: 'many b' },
      { name: 'many c' },
    ]);
    expect(stored[1]?.id).toBe(770_001);
    expect(stored.replayed).toBe(false);
    expect(stored.changeSeq).toBeGreaterThanOrEqual(3);
    for (const plant of stored) expect(await plants.get(plant.id)).toEqual(plant);
    const again = await plants.createMany(
      [{ name: 'many a', tag: 'many' }, { id: 770_001, name: 'many b' }, { name: 'many c' }],
      {
        idempotencyKey: 'e2e-many-1',
      },
    );
    expect(again).toEqual(stored);
    expect(again.replayed).toBe(true);
    expect(again.changeSeq).toBe(stored.changeSeq);
    await expect(plants.createMany([{ name: 'other' }], { idempotencyKey: 'e2e-many-1' })).rejects.toThrow(
      IdempotencyKeyReusedError,
    );
  });

  it('stores nothing of an array with a taken id, and says which', async () => {
    const { plants } = client();
    await expect(plants.createMany([{ name: 'never' }, { id: 770_001, name: 'taken' }])).rejects.toMatchObject({
      status: 409,
      message: 'a plant with id 770001 already exists; nothing was created',
    });
    const page = await plants.list({ q: 'never' });
    expect(page.plants).toEqual([]);
  });
});

describe('every error class against the real server', () => {
  it('BadRequestError: the server names the failing field', async () => {
    const error = await failure(client({ validate: false }).plants.create({ name: '' }));
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error).toMatchObject({
      status: 400,
      body: { error: 400, message: 'name: expected 1–200 characters, got 0' },
    });
    expect(error.requestId).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
  });

  it('ValidationError: rejected before sending', async () => {
    const error = await failure(client().plants.create({ name: 'x', id: 0 }));
    expect(error).toBeInstanceOf(ValidationError);
  });

  it('UnauthorizedError: an unknown token', async () => {
    const error = await failure(client({ token: 'pst_unknownunknownunknownunknown' }).plants.list());
    expect(error).toBeInstanceOf(UnauthorizedError);
    expect(error).toMatchObject({ status: 401, body: { error: 401 } });
  });

  it('ForbiddenError: a read-only token cannot create', async () => {
    const error = await failure(client({ token: live.readOnlyToken }).plants.create({ name: 'Nope' }));
    expect(error).toBeInstanceOf(ForbiddenError);
    expect(error).toMatchObject({ status: 403, body: { error: 403 } });
  });

  it('NotFoundError and ConflictError', async () => {
    const plants = client().plants;
    expect(await failure(plants.delete(123_456_789))).toBeInstanceOf(NotFoundError);
    await plants.create({ id: 777, name: 'Taken' });
    const conflict = await failure(plants.create({ id: 777, name: 'Again' }));
    expect(conflict).toBeInstanceOf(ConflictError);
    expect(conflict.body?.message).toBe('a plant with id 777 already exists');
    expect(await plants.get(777)).toEqual({ id: 777, name: 'Taken' });
  });

  it('PayloadTooLargeError: a body over 16 KiB', async () => {
    const error = await failure(client({ validate: false }).plants.create({ name: 'x'.repeat(20_000) }));
    expect(error).toBeInstanceOf(PayloadTooLargeError);
    expect(error.status).toBe(413);
  });

  it('UnsupportedMediaTypeError: a body that is not JSON', async () => {
    const plants = client({
      hooks: { beforeRequest: [(req) => void (req.headers['content-type'] = 'text/plain')] },
    }).plants;
    const error = await failure(plants.create({ name: 'Plain' }));
    expect(error).toBeInstanceOf(UnsupportedMediaTypeError);
    expect(error.status).toBe(415);
  });

  it('ServiceUnavailableError and TimeoutError: the store is locked by another writer', async () => {
    const file = live.databaseUrl.slice('sqlite:'.length);
    const blocker = new Database(file);
    blocker.exec('BEGIN EXCLUSIVE');
    try {
      const timeout = await failure(client({ timeout: 200 }).plants.create({ name: 'Blocked' }));
      expect(timeout).toBeInstanceOf(TimeoutError);
      const unavailable = await failure(client({ timeout: 60_000 }).plants.create({ name: 'Blocked' }));
      expect(unavailable).toBeInstanceOf(ServiceUnavailableError);
      expect(unavailable).toBeInstanceOf(ServerError);
      expect(unavailable).toMatchObject({ status: 503, body: { error: 503 } });
    } finally {
      blocker.exec('ROLLBACK');
      blocker.close();
    }
    // nothing of the failed writes is stored, and the store works again
    const names: string[] = [];
    for await (const plant of client().plants.all()) names.push(plant.name);
    expect(names).not.toContain('Blocked');
    expect(await client().plants.create({ name: 'After' })).toMatchObject({ name: 'After' });
  });

  it('ConnectionError: nothing listens', async () => {
    const port = await freePort();
    const error = await failure(client({ baseUrl: `http://127.0.0.1:${port}` }).plants.list());
    expect(error).toBeInstanceOf(ConnectionError);
  });

  it('AbortError: the caller aborts', async () => {
    const controller = new AbortController();
    controller.abort();
    const error = await failure(client().plants.list({}, { signal: controller.signal }));
    expect(error).toBeInstanceOf(AbortError);
  });

  it('UnexpectedResponseError: a proxy drops the Location header of a 201', async () => {
    await throughProxy(
      (_req, answer, res) => {
        const headers = { ...answer.headers };
        delete headers.location;
        res.writeHead(answer.statusCode ?? 502, headers);
        answer.pipe(res);
      },
      async (baseUrl) => {
        const error = await failure(client({ baseUrl }).plants.create({ name: 'Lost id' }));
        expect(error).toBeInstanceOf(UnexpectedResponseError);
      },
    );
  });
});

describe('idempotent creates against the real server', () => {
  it('retries a create whose answer was lost with its key: one plant, the saved 201 replayed', async () => {
    let creates = 0;
    // The first create reaches the server and commits, but its answer is dropped (the connection
    // to the client is destroyed), as when a timeout or a reset loses it.
    await throughProxy(
      (req, answer, res) => {
        if (req.method === 'POST' && ++creates === 1) {
          answer.resume();
          answer.on('end', () => res.destroy());
          return;
        }
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
      async (baseUrl) => {
        const name = `lost answer ${Date.now()}`;
        const created = await client({ baseUrl, retry: { limit: 2, baseDelayMs: 10 } }).plants.create({ name });
        expect(creates).toBe(2);
        expect(created.replayed).toBe(true);
        const all: string[] = [];
        for await (const plant of client().plants.all()) all.push(plant.name);
        expect(all.filter((n) => n === name)).toHaveLength(1);
        expect(await client().plants.get(created.id)).toEqual({ id: created.id, name });
      },
    );
  });

  it('replays your own key, and refuses it for another request with IdempotencyKeyReusedError', async () => {
    const idempotencyKey = `e2e-${Date.now()}`;
    const first = await client().plants.create({ name: 'Keyed' }, { idempotencyKey });
    const again = await client().plants.create({ name: 'Keyed' }, { idempotencyKey });
    expect([first.replayed, again.replayed, again.id]).toEqual([false, true, first.id]);
    const error = await failure(client().plants.create({ name: 'Other' }, { idempotencyKey }));
    expect(error).toBeInstanceOf(IdempotencyKeyReusedError);
    expect(error.status).toBe(422);
  });
});
