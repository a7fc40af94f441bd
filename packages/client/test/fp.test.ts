import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import * as TE from 'fp-ts/lib/TaskEither.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createPlantStoreClient,
  IdempotencyKeyReusedError,
  NotFoundError,
  PreconditionFailedError,
  ServerError,
  ValidationError,
  type PlantStoreClient,
} from '../src/index.js';
import { answerLost, reply, startFakeServer, TOKEN, type FakeServer } from './fake-server.js';

let server: FakeServer;
let client: PlantStoreClient;

beforeEach(async () => {
  server = await startFakeServer();
  client = createPlantStoreClient({ baseUrl: server.url, token: TOKEN, retry: 0 });
});

afterEach(async () => {
  await server.close();
});

describe('fp.plants', () => {
  it('composes create, get, list and delete as TaskEither', async () => {
    const program = pipe(
      client.fp.plants.create({ name: 'Fern', tag: 'green' }),
      TE.chain((created) => client.fp.plants.get(created.id)),
      TE.chainFirst((plant) => client.fp.plants.delete(plant.id)),
      TE.chain(() => client.fp.plants.list({ limit: 10 })),
    );
    expect(await program()).toEqual(E.right({ plants: [] }));
  });

  it('returns every PlantStoreError as a Left', async () => {
    const missing = await client.fp.plants.get(404)();
    expect(E.isLeft(missing) && missing.left).toBeInstanceOf(NotFoundError);
    const invalid = await client.fp.plants.create({ name: '' })();
    expect(E.isLeft(invalid) && invalid.left).toBeInstanceOf(ValidationError);
    server.enqueue(reply(500));
    const failed = await client.fp.plants.delete(1)();
    expect(E.isLeft(failed) && failed.left._tag).toBe('Server');
    expect(E.isLeft(failed) && failed.left).toBeInstanceOf(ServerError);
  });

  it('create takes CreateOptions and resolves to a CreatedPlant', async () => {
    const first = await client.fp.plants.create({ name: 'Fern' }, { idempotencyKey: 'fp-1' })();
    const again = await client.fp.plants.create({ name: 'Fern' }, { idempotencyKey: 'fp-1' })();
    expect(first).toEqual(E.right({ id: 1, name: 'Fern' }));
    expect(again).toEqual(first);
    expect(E.isRight(first) && first.right.replayed).toBe(false);
    expect(E.isRight(again) && again.right.replayed).toBe(true);
    expect(server.requests.map((r) => r.headers['idempotency-key'])).toEqual(['fp-1', 'fp-1']);
  });

  it('create retries with its key and reports a reused key as a Left', async () => {
    const retrying = createPlantStoreClient({ baseUrl: server.url, token: TOKEN, retry: { limit: 1, baseDelayMs: 1 } });
    server.enqueue(answerLost);
    const created = await retrying.fp.plants.create({ name: 'Fern' }, { idempotencyKey: 'fp-2' })();
    expect(E.isRight(created) && created.right.replayed).toBe(true);
    const reused = await client.fp.plants.create({ name: 'Ivy' }, { idempotencyKey: 'fp-2' })();
    expect(E.isLeft(reused) && reused.left).toBeInstanceOf(IdempotencyKeyReusedError);
    expect(E.isLeft(reused) && reused.left._tag).toBe('IdempotencyKeyReused');
    const invalid = await client.fp.plants.create({ name: 'Ivy' }, { idempotencyKey: 'not a key' })();
    expect(E.isLeft(invalid) && invalid.left._tag).toBe('Validation');
  });

  it('update and the conditional get and delete: 304 is a Right, 412 a Left', async () => {
    const program = pipe(
      client.fp.plants.create({ id: 3, name: 'Fern' }),
      TE.chain((created) => client.fp.plants.update(created.id, { tag: 'shade' }, { ifMatch: created.etag as string })),
      TE.chain((updated) => client.fp.plants.get(updated.id, { ifNoneMatch: updated.etag })),
    );
    const result = await program();
    expect(result).toEqual(E.right({ notModified: true, etag: server.etagOf(3) }));

    const stale = await client.fp.plants.update(3, { name: 'Ivy' }, { ifMatch: '"stale"' })();
    expect(E.isLeft(stale) && stale.left).toBeInstanceOf(PreconditionFailedError);
    expect(E.isLeft(stale) && stale.left._tag).toBe('PreconditionFailed');
    const refused = await client.fp.plants.delete(3, { ifMatch: '"stale"' })();
    expect(E.isLeft(refused) && refused.left._tag).toBe('PreconditionFailed');

    const plain = await client.fp.plants.get(3)();
    expect(plain).toEqual(E.right({ id: 3, name: 'Fern', tag: 'shade' }));
    expect(E.isRight(plain) && plain.right.etag).toBe(server.etagOf(3));
  });

  it('listAll takes a tag', async () => {
    for (let id = 1; id <= 5; id++)
      await client.plants.create({ id, name: `p${id}`, ...(id > 2 ? { tag: 'late bloomer' } : {}) });
    const all = await client.fp.plants.listAll({ limit: 2, tag: 'late bloomer' })();
    expect(E.map((plants: readonly { id: number }[]) => plants.map((p) => p.id))(all)).toEqual(E.right([3, 4, 5]));
  });

  it('listAll collects every page', async () => {
    for (let id = 1; id <= 5; id++) await client.plants.create({ id, name: `p${id}` });
    const all = await client.fp.plants.listAll({ limit: 2 })();
    expect(E.map((plants: readonly { id: number }[]) => plants.map((p) => p.id))(all)).toEqual(
      E.right([1, 2, 3, 4, 5]),
    );
  });

  it('lets defects reject the task instead of hiding them in a Left', async () => {
    const broken = createPlantStoreClient({
      baseUrl: server.url,
      token: TOKEN,
      hooks: {
        beforeRequest: [
          () => {
            throw new RangeError('bug in a hook');
          },
        ],
      },
    });
    await expect(broken.fp.plants.get(1)()).rejects.toThrow(RangeError);
  });
});
