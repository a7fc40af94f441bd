import * as E from 'fp-ts/lib/Either.js';
import { afterEach, beforeEach, describe, expect, expectTypeOf, it } from 'vitest';
import {
  BadRequestError,
  createPlantStoreClient,
  PreconditionFailedError,
  UnexpectedResponseError,
  ValidationError,
  type PlantStoreClient,
  type PlantStoreClientOptions,
  type PutPlant,
  type PutPlantInput,
} from '../src/index.js';
import { answerLost, raw, rejection, startFakeServer, TOKEN, type FakeServer } from './fake-server.js';

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

describe('plants.put', () => {
  it('creates an absent plant: the plant, its ETag, created: true and its change number', async () => {
    const put = await clientFor().plants.put(7, { name: 'Fern', tag: 'shade' });
    expectTypeOf(put).toEqualTypeOf<PutPlant>();
    expect(put).toStrictEqual({ id: 7, name: 'Fern', tag: 'shade' });
    expect(put.created).toBe(true);
    expect(put.etag).toBe(server.etagOf(7));
    expect(put.changeSeq).toBe(1);
    const [request] = server.requests;
    expect(request).toMatchObject({ method: 'PUT', url: '/plants/7', body: '{"name":"Fern","tag":"shade"}' });
    expect(request?.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(request?.headers['idempotency-key']).toBeUndefined();
  });

  it('replaces an existing plant whole: a tag left out is removed, created: false', async () => {
    stage(7, 'Fern', 'shade');
    const put = await clientFor().plants.put(7, { name: 'Boston fern' });
    expect(put).toStrictEqual({ id: 7, name: 'Boston fern' });
    expect(put.created).toBe(false);
    expect(server.plants.get(7)).toEqual({ id: 7, name: 'Boston fern' });
  });

  it('keeps etag, created and changeSeq out of keys, spreading and JSON', async () => {
    const put = await clientFor().plants.put(7, { name: 'Fern' });
    expect(Object.keys(put)).toEqual(['id', 'name']);
    expect(JSON.stringify(put)).toBe('{"id":7,"name":"Fern"}');
  });

  it('sends ifMatch and ifNoneMatch verbatim, and rejects a precondition that fails with PreconditionFailedError', async () => {
    const client = clientFor();
    const first = await client.plants.put(7, { name: 'Fern' }, { ifNoneMatch: '*' });
    expect(server.requests[0]?.headers['if-none-match']).toBe('*');
    const again = await rejection(client.plants.put(7, { name: 'Other' }, { ifNoneMatch: '*' }));
    expect(again).toBeInstanceOf(PreconditionFailedError);
    expect(again).toMatchObject({ status: 412, method: 'PUT', attempts: 1 });
    const replaced = await client.plants.put(7, { name: 'Ivy' }, { ifMatch: first.etag });
    expect(server.requests[2]?.headers['if-match']).toBe(first.etag);
    expect(replaced.created).toBe(false);
    expect(await rejection(client.plants.put(7, { name: 'No' }, { ifMatch: first.etag }))).toBeInstanceOf(
      PreconditionFailedError,
    );
    const missing = await rejection(client.plants.put(8, { name: 'No' }, { ifMatch: '*' }));
    expect(missing).toBeInstanceOf(PreconditionFailedError);
    expect(missing.body?.message).toBe('no plant with id 8: If-Match needs an existing plant');
    expect(server.plants.has(8)).toBe(false);
  });

  it.each<[string, PutPlantInput, RegExp]>([
    ['an empty name', { name: '' }, /^name: expected 1–200 characters, got 0$/],
    ['no name', {} as never, /^name: required$/],
    ['a null tag', { name: 'Fern', tag: null } as never, /^tag: expected a string, got null$/],
    ['an id', { id: 8, name: 'Fern' } as never, /^id: cannot be changed/],
    ['an unknown member', { name: 'Fern', colour: 'green' } as never, /^colour: unknown member/],
  ])('rejects %s with ValidationError and sends nothing', async (_, plant, problem) => {
    const error = await rejection(clientFor().plants.put(7, plant));
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).problems[0]).toMatch(problem);
    expect(server.requests).toHaveLength(0);
  });

  it('checks the id and the conditions before sending', async () => {
    expect(await rejection(clientFor().plants.put(0, { name: 'Fern' }))).toBeInstanceOf(ValidationError);
    expect(await rejection(clientFor().plants.put(7, { name: 'Fern' }, { ifMatch: 'bare' }))).toBeInstanceOf(
      ValidationError,
    );
    expect(server.requests).toHaveLength(0);
  });

  it('with validate: false leaves the check to the server', async () => {
    const error = await rejection(clientFor({ validate: false }).plants.put(7, { name: '' }));
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error.status).toBe(400);
  });

  it('is retried after a lost answer, and the retry sees the plant it made: created: false', async () => {
    server.enqueue(answerLost);
    const put = await clientFor().plants.put(7, { name: 'Fern' });
    expect(server.requests.map((r) => r.method)).toEqual(['PUT', 'PUT']);
    expect(put).toStrictEqual({ id: 7, name: 'Fern' });
    expect(put.created).toBe(false);
  });

  it('rejects a 200 without an ETag, and a 201 whose Location names another plant', async () => {
    server.enqueue(raw(200, '{"id":7,"name":"Fern"}'));
    expect(
      ((await rejection(clientFor().plants.put(7, { name: 'Fern' }))) as UnexpectedResponseError).problems,
    ).toEqual(['the 200 response has no ETag header']);
    server.enqueue(
      raw(201, '{"id":7,"name":"Fern"}', { 'content-type': 'application/json', etag: '"1"', location: '/elsewhere' }),
    );
    expect(await rejection(clientFor().plants.put(7, { name: 'Fern' }))).toBeInstanceOf(UnexpectedResponseError);
  });

  it('is offered as a TaskEither too', async () => {
    const client = clientFor();
    const right = await client.fp.plants.put(7, { name: 'Fern' })();
    expect(right).toMatchObject({ _tag: 'Right', right: { id: 7, name: 'Fern' } });
    const left = await client.fp.plants.put(7, { name: 'Fern' }, { ifNoneMatch: '*' })();
    expect(E.isLeft(left) && left.left).toBeInstanceOf(PreconditionFailedError);
  });
});

describe("the change number of a write's answer", () => {
  it('is on create, update and put results, as a non-enumerable changeSeq', async () => {
    const client = clientFor();
    const created = await client.plants.create({ name: 'Fern' });
    expect(created.changeSeq).toBe(1);
    const updated = await client.plants.update(created.id, { tag: 'shade' });
    expect(updated.changeSeq).toBe(2);
    const same = await client.plants.update(created.id, { tag: 'shade' });
    expect(same.changeSeq).toBe(2);
    const put = await client.plants.put(created.id, { name: 'Fern' });
    expect(put.changeSeq).toBe(3);
    expect(Object.keys(created)).toEqual(['id', 'name']);
  });

  it("is the first answer's on a replayed create, and undefined from a server that sends none", async () => {
    const client = clientFor();
    const first = await client.plants.create({ name: 'Fern' }, { idempotencyKey: 'k-1' });
    await client.plants.create({ name: 'Ivy' });
    const replay = await client.plants.create({ name: 'Fern' }, { idempotencyKey: 'k-1' });
    expect(replay.replayed).toBe(true);
    expect(replay.changeSeq).toBe(first.changeSeq);
    server.enqueue(raw(201, '{"name":"Old"}', { 'content-type': 'application/json', location: '/plants/9' }));
    expect((await client.plants.create({ name: 'Old' })).changeSeq).toBeUndefined();
  });
});
