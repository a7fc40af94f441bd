import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import * as TE from 'fp-ts/lib/TaskEither.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createPlantStoreClient, NotFoundError, ServerError, ValidationError, type PlantStoreClient } from '../src/index.js';
import { reply, startFakeServer, TOKEN, type FakeServer } from './fake-server.js';

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

  it('listAll collects every page', async () => {
    for (let id = 1; id <= 5; id++) await client.plants.create({ id, name: `p${id}` });
    const all = await client.fp.plants.listAll({ limit: 2 })();
    expect(E.map((plants: readonly { id: number }[]) => plants.map((p) => p.id))(all)).toEqual(E.right([1, 2, 3, 4, 5]));
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
