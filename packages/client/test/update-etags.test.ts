import { afterEach, beforeEach, describe, expect, expectTypeOf, it } from 'vitest';
import {
  BadRequestError,
  createPlantStoreClient,
  NotFoundError,
  PreconditionFailedError,
  UnexpectedResponseError,
  ValidationError,
  type FetchedPlant,
  type NotModified,
  type PlantStoreClient,
  type PlantStoreClientOptions,
  type UpdatedPlant,
  type UpdatePlantInput,
} from '../src/index.js';
import { raw, rejection, startFakeServer, TOKEN, type FakeServer } from './fake-server.js';

let server: FakeServer;

const clientFor = (options: Partial<PlantStoreClientOptions> = {}): PlantStoreClient =>
  createPlantStoreClient({
    baseUrl: server.url,
    token: TOKEN,
    retry: { limit: 2, baseDelayMs: 1, maxDelayMs: 5 },
    ...options,
  });

const stage = (id: number, name: string, tag?: string): void => {
  server.plants.set(id, (tag === undefined ? { id, name } : { id, name, tag }) as never);
};

beforeEach(async () => {
  server = await startFakeServer();
});

afterEach(async () => {
  await server.close();
});

describe('plants.update', () => {
  it('sends a merge patch and resolves to the whole plant with its new ETag', async () => {
    stage(7, 'Fern', 'shade');
    const updated = await clientFor().plants.update(7, { name: 'Boston fern' });
    expect(updated).toStrictEqual({ id: 7, name: 'Boston fern', tag: 'shade' });
    expect(updated.etag).toBe(server.etagOf(7));
    const [request] = server.requests;
    expect(request).toMatchObject({ method: 'PATCH', url: '/plants/7', body: '{"name":"Boston fern"}' });
    expect(request?.headers['content-type']).toBe('application/merge-patch+json');
    expect(request?.headers['if-match']).toBeUndefined();
  });

  it('keeps the ETag out of keys, spreading and JSON', async () => {
    stage(7, 'Fern');
    const updated = await clientFor().plants.update(7, { tag: 'shade' });
    expect(Object.keys(updated)).toEqual(['id', 'name', 'tag']);
    expect(JSON.stringify(updated)).toBe('{"id":7,"name":"Fern","tag":"shade"}');
    expect({ ...updated }).toStrictEqual({ id: 7, name: 'Fern', tag: 'shade' });
  });

  it('removes the tag with tag: null, and changes nothing with {}', async () => {
    stage(7, 'Fern', 'shade');
    const client = clientFor();
    const untagged = await client.plants.update(7, { tag: null });
    expect(untagged).toStrictEqual({ id: 7, name: 'Fern' });
    expect(server.requests[0]?.body).toBe('{"tag":null}');
    const same = await client.plants.update(7, {});
    expect(same).toStrictEqual({ id: 7, name: 'Fern' });
    expect(same.etag).toBe(untagged.etag);
  });

  it('keeps the ETag when a patch sets the values the plant already has', async () => {
    stage(7, 'Fern', 'shade');
    const before = server.etagOf(7);
    expect((await clientFor().plants.update(7, { name: 'Fern', tag: 'shade' })).etag).toBe(before);
  });

  it.each<[string, UpdatePlantInput, RegExp]>([
    ['an empty name', { name: '' }, /^name: expected 1–200 characters, got 0$/],
    ['a null name', { name: null } as never, /^name: expected a string/],
    ['a tag that is too long', { tag: 'x'.repeat(101) }, /^tag: expected 1–100 characters, got 101$/],
    ['an id', { id: 8, name: 'Fern' } as never, /^id: cannot be changed/],
    ['an unknown member', { colour: 'green' } as never, /^colour: unknown member/],
  ])('rejects %s with ValidationError and sends nothing', async (_, patch, problem) => {
    stage(7, 'Fern');
    const error = await rejection(clientFor().plants.update(7, patch));
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).problems[0]).toMatch(problem);
    expect(server.requests).toHaveLength(0);
  });

  it('with validate: false leaves the check to the server', async () => {
    stage(7, 'Fern');
    const error = await rejection(clientFor({ validate: false }).plants.update(7, { name: '' }));
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error).not.toBeInstanceOf(ValidationError);
    expect(error.status).toBe(400);
  });

  it('rejects with NotFoundError for an unknown plant', async () => {
    const error = await rejection(clientFor().plants.update(99, { name: 'Fern' }));
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.method).toBe('PATCH');
  });

  it('rejects a 200 without an ETag with UnexpectedResponseError', async () => {
    server.enqueue(raw(200, '{"id":7,"name":"Fern"}'));
    const error = await rejection(clientFor().plants.update(7, { name: 'Fern' }));
    expect(error).toBeInstanceOf(UnexpectedResponseError);
    expect((error as UnexpectedResponseError).problems).toEqual(['the 200 response has no ETag header']);
  });
});

describe('If-Match on update and delete', () => {
  it('applies an update whose ifMatch names the current ETag, and refuses a stale one with PreconditionFailedError', async () => {
    stage(7, 'Fern');
    const client = clientFor();
    const read = await client.plants.get(7);
    const first = await client.plants.update(7, { tag: 'shade' }, { ifMatch: read.etag as string });
    expect(server.requests[1]?.headers['if-match']).toBe(read.etag);
    expect(first.etag).not.toBe(read.etag);

    const error = await rejection(client.plants.update(7, { tag: 'sun' }, { ifMatch: read.etag as string }));
    expect(error).toBeInstanceOf(PreconditionFailedError);
    expect(error).toMatchObject({ _tag: 'PreconditionFailed', status: 412, attempts: 1, method: 'PATCH' });
    expect(error.body).toEqual({ error: 412, message: 'plant 7 has changed: If-Match does not name its current ETag' });
    expect(server.plants.get(7)).toEqual({ id: 7, name: 'Fern', tag: 'shade' });
  });

  it('lets exactly one of two writers with the same ETag win', async () => {
    stage(7, 'Fern');
    const [alice, bob] = [clientFor(), clientFor()];
    const { etag } = await alice.plants.get(7);
    const outcomes = await Promise.allSettled([
      alice.plants.update(7, { name: 'Alice fern' }, { ifMatch: etag as string }),
      bob.plants.update(7, { name: 'Bob fern' }, { ifMatch: etag as string }),
    ]);
    expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
    const lost = outcomes.find((o) => o.status === 'rejected');
    expect(lost?.status === 'rejected' && lost.reason).toBeInstanceOf(PreconditionFailedError);
  });

  it('sends the ETag verbatim, whatever it holds', async () => {
    const etag = 'W/"a,b;c=d/+*!~"';
    server.enqueue(raw(200, '{"id":7,"name":"Fern"}', { 'content-type': 'application/json', etag }));
    const read = await clientFor().plants.get(7);
    expect(read.etag).toBe(etag);
    stage(7, 'Fern');
    // A weak ETag never satisfies If-Match (strong comparison): sent as it came, refused by the server.
    expect(await rejection(clientFor().plants.update(7, { name: 'x' }, { ifMatch: etag }))).toBeInstanceOf(
      PreconditionFailedError,
    );
    expect(server.requests[1]?.headers['if-match']).toBe(etag);
  });

  it('accepts * (the plant exists) and lists of ETags', async () => {
    stage(7, 'Fern');
    const client = clientFor();
    await client.plants.update(7, { tag: 'a' }, { ifMatch: '*' });
    await client.plants.update(7, { tag: 'b' }, { ifMatch: `"old", ${server.etagOf(7)}` });
    expect(server.plants.get(7)?.tag).toBe('b');
  });

  it('checks ifMatch before sending: a bare value (quotes lost) is a ValidationError', async () => {
    stage(7, 'Fern');
    const error = await rejection(clientFor().plants.update(7, { name: 'x' }, { ifMatch: '1k3' }));
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.message).toMatch(/^ifMatch: expected an ETag as the server sent it, in double quotes/);
    expect(await rejection(clientFor().plants.delete(7, { ifMatch: '"a"\r\nx: y' }))).toBeInstanceOf(ValidationError);
    expect(server.requests).toHaveLength(0);
    const unchecked = await rejection(
      clientFor({ validate: false }).plants.update(7, { name: 'x' }, { ifMatch: '1k3' }),
    );
    expect(unchecked).toBeInstanceOf(BadRequestError);
    expect(unchecked.status).toBe(400);
  });

  it('deletes only when ifMatch names the current ETag', async () => {
    stage(7, 'Fern');
    const client = clientFor();
    const stale = server.etagOf(7) as string;
    await client.plants.update(7, { name: 'Ivy' });
    expect(await rejection(client.plants.delete(7, { ifMatch: stale }))).toBeInstanceOf(PreconditionFailedError);
    expect(server.plants.has(7)).toBe(true);
    const current = server.etagOf(7) as string;
    await client.plants.delete(7, { ifMatch: current });
    expect(server.plants.has(7)).toBe(false);
    expect(server.requests.at(-1)?.headers['if-match']).toBe(current);
  });

  it('answers NotFoundError, not 412, for an unknown plant', async () => {
    expect(await rejection(clientFor().plants.delete(99, { ifMatch: '"x"' }))).toBeInstanceOf(NotFoundError);
    expect(await rejection(clientFor().plants.update(99, { name: 'x' }, { ifMatch: '"x"' }))).toBeInstanceOf(
      NotFoundError,
    );
  });
});

describe('etag on create and get', () => {
  it('comes with create, as non-enumerable metadata beside replayed', async () => {
    const created = await clientFor().plants.create({ id: 5, name: 'Ivy', tag: 'hanging' });
    expect(created).toStrictEqual({ id: 5, name: 'Ivy', tag: 'hanging' });
    expect(created.etag).toBe(server.etagOf(5));
    expect(Object.keys(created)).toEqual(['id', 'name', 'tag']);
    expect(Object.getOwnPropertyDescriptor(created, 'etag')).toMatchObject({ enumerable: false, writable: false });
  });

  it('is the creation ETag on a replayed create, even after the plant changed', async () => {
    const client = clientFor();
    const created = await client.plants.create({ name: 'Ivy' }, { idempotencyKey: 'k1' });
    await client.plants.update(created.id, { name: 'Ivy 2' });
    const replay = await client.plants.create({ name: 'Ivy' }, { idempotencyKey: 'k1' });
    expect(replay.replayed).toBe(true);
    expect(replay.etag).toBe(created.etag);
    expect(replay.etag).not.toBe(server.etagOf(created.id));
  });

  it('comes with get, which still deep-equals the plant', async () => {
    stage(5, 'Ivy');
    const plant = await clientFor().plants.get(5);
    expect(plant).toStrictEqual({ id: 5, name: 'Ivy' });
    expect(plant.etag).toBe(server.etagOf(5));
    expect(plant.notModified).toBe(false);
    expect(JSON.stringify(plant)).toBe('{"id":5,"name":"Ivy"}');
  });

  it('is undefined from a server that sends no ETag', async () => {
    server.enqueue(
      raw(200, '{"id":5,"name":"Ivy"}'),
      raw(201, '{"name":"Ivy"}', { 'content-type': 'application/json', location: '/plants/5' }),
    );
    const client = clientFor();
    expect((await client.plants.get(5)).etag).toBeUndefined();
    expect((await client.plants.create({ name: 'Ivy' })).etag).toBeUndefined();
  });

  it('changes when the plant is deleted and created again with the same content', async () => {
    const client = clientFor();
    const first = await client.plants.create({ id: 5, name: 'Ivy' });
    await client.plants.delete(5);
    const second = await client.plants.create({ id: 5, name: 'Ivy' });
    expect(second.etag).not.toBe(first.etag);
  });
});

describe('plants.get with ifNoneMatch', () => {
  it('resolves to NotModified while the plant keeps the ETag, to the plant once it changed', async () => {
    stage(5, 'Ivy');
    const client = clientFor();
    const cached = await client.plants.get(5);
    const unchanged = await client.plants.get(5, { ifNoneMatch: cached.etag });
    expect(unchanged).toStrictEqual({ notModified: true, etag: cached.etag });
    expect(server.requests[1]?.headers['if-none-match']).toBe(cached.etag);

    await client.plants.update(5, { name: 'Ivy 2' });
    const changed = await client.plants.get(5, { ifNoneMatch: cached.etag });
    if (changed.notModified) throw new Error('expected the plant');
    expect(changed).toStrictEqual({ id: 5, name: 'Ivy 2' });
    expect(changed.etag).toBe(server.etagOf(5));
  });

  it('compares weakly and takes * and lists', async () => {
    stage(5, 'Ivy');
    const client = clientFor();
    const etag = server.etagOf(5) as string;
    expect(await client.plants.get(5, { ifNoneMatch: `W/${etag}` })).toMatchObject({ notModified: true });
    expect(await client.plants.get(5, { ifNoneMatch: '*' })).toMatchObject({ notModified: true });
    expect(await client.plants.get(5, { ifNoneMatch: `"other", ${etag}` })).toMatchObject({ notModified: true });
  });

  it('sends no condition for ifNoneMatch: undefined', async () => {
    stage(5, 'Ivy');
    expect(await clientFor().plants.get(5, { ifNoneMatch: undefined })).toStrictEqual({ id: 5, name: 'Ivy' });
    expect(server.requests[0]?.headers['if-none-match']).toBeUndefined();
  });

  it('still rejects NotFoundError for an unknown plant', async () => {
    expect(await rejection(clientFor().plants.get(5, { ifNoneMatch: '"x"' }))).toBeInstanceOf(NotFoundError);
  });

  it('rejects a 304 without an ETag, and a 304 to a get that asked for none', async () => {
    server.enqueue(raw(304, ''));
    const missing = await rejection(clientFor().plants.get(5, { ifNoneMatch: '"x"' }));
    expect(missing).toBeInstanceOf(UnexpectedResponseError);
    expect(missing.message).toBe('the 304 response has no ETag header');
    server.enqueue(raw(304, '', { etag: '"x"' }));
    const unasked = await rejection(clientFor().plants.get(5));
    expect(unasked).toBeInstanceOf(UnexpectedResponseError);
    expect(unasked.status).toBe(304);
  });

  it('checks ifNoneMatch before sending', async () => {
    expect(await rejection(clientFor().plants.get(5, { ifNoneMatch: 'abc' }))).toBeInstanceOf(ValidationError);
    expect(server.requests).toHaveLength(0);
  });
});

describe('the types', () => {
  it('give get a NotModified only when it sends ifNoneMatch', () => {
    // Checked by tsc (the package's typecheck covers test/); never run.
    const typed = (client: PlantStoreClient, etag: string | undefined) => {
      expectTypeOf(client.plants.get(1)).resolves.toEqualTypeOf<FetchedPlant>();
      expectTypeOf(client.plants.get(1, { timeout: 5 })).resolves.toEqualTypeOf<FetchedPlant>();
      expectTypeOf(client.plants.get(1, { ifNoneMatch: '"x"' })).resolves.toEqualTypeOf<FetchedPlant | NotModified>();
      expectTypeOf(client.plants.get(1, { ifNoneMatch: etag })).resolves.toEqualTypeOf<FetchedPlant | NotModified>();
      expectTypeOf(client.plants.update(1, { tag: null })).resolves.toEqualTypeOf<UpdatedPlant>();
      expectTypeOf<UpdatedPlant['etag']>().toEqualTypeOf<string>();
      expectTypeOf<FetchedPlant['etag']>().toEqualTypeOf<string | undefined>();
      // @ts-expect-error: ifMatch is a string; undefined would silently drop the protection
      void client.plants.update(1, {}, { ifMatch: etag });
    };
    expect(typed).toBeTypeOf('function');
  });
});
