import * as E from 'fp-ts/lib/Either.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  BadRequestError,
  ConflictError,
  IdempotencyKeyReusedError,
  PayloadTooLargeError,
  ValidationError,
  type PlantStoreClient,
  type PlantStoreClientOptions,
  type RetryInfo,
} from '../src/index.js';
import {
  answerLost,
  bulkLimit,
  drop,
  fastRetryingClient,
  reply,
  stagePlants,
  startFakeServer,
  type FakeServer,
} from './fake-server.js';

/** The default key: a time-ordered UUIDv7 (src/uuid-v7.ts). */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let server: FakeServer;
let retries: RetryInfo[];

const clientFor = (options: Partial<PlantStoreClientOptions> = {}): PlantStoreClient =>
  fastRetryingClient(server, retries, options);
const batches = () => server.requests.filter((r) => r.url === '/plants/batch');

beforeEach(async () => {
  retries = [];
  server = await startFakeServer();
});

afterEach(async () => {
  await server.close();
});

describe('plants.createMany', () => {
  it('sends the array to POST /plants/batch and resolves to the created plants in order, ids included', async () => {
    stagePlants(server, [{ id: 100, name: 'marker' }]);
    const created = await clientFor().plants.createMany([
      { name: 'Fern', tag: 'shade' },
      { id: 7, name: 'Ivy' },
      { name: 'Basil' },
    ]);
    expect(created).toEqual([
      { id: 101, name: 'Fern', tag: 'shade' },
      { id: 7, name: 'Ivy' },
      { id: 102, name: 'Basil' },
    ]);
    // replayed and changeSeq are there, but deep equality and JSON see the plants alone.
    expect(created.replayed).toBe(false);
    expect(created.changeSeq).toBe(server.changes.at(-1)?.seq);
    expect(Object.keys(created)).toEqual(['0', '1', '2']);
    expect(JSON.stringify(created)).toBe(
      '[{"id":101,"name":"Fern","tag":"shade"},{"id":7,"name":"Ivy"},{"id":102,"name":"Basil"}]',
    );
    const [sent] = batches();
    expect(sent?.method).toBe('POST');
    expect(sent?.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(sent?.headers['idempotency-key']).toMatch(UUID);
    expect(JSON.parse(sent?.body ?? '')).toEqual([
      { name: 'Fern', tag: 'shade' },
      { name: 'Ivy', id: 7 },
      { name: 'Basil' },
    ]);
  });

  it('retries a lost answer with the same key, and says the array was replayed, created once', async () => {
    server.enqueue(answerLost, drop);
    const created = await clientFor().plants.createMany([{ name: 'Fern' }, { name: 'Ivy' }]);
    expect(created.replayed).toBe(true);
    expect(server.plants.size).toBe(2);
    const keys = batches().map((r) => r.headers['idempotency-key']);
    expect(keys).toHaveLength(3);
    expect(new Set(keys).size).toBe(1);
    expect(retries).toHaveLength(2);
  });

  it('sends your key, and none with idempotencyKey: false (then it is not retried)', async () => {
    const client = clientFor();
    await client.plants.createMany([{ name: 'Fern' }], { idempotencyKey: 'my-array-1' });
    expect(batches()[0]?.headers['idempotency-key']).toBe('my-array-1');
    const again = await client.plants.createMany([{ name: 'Fern' }], { idempotencyKey: 'my-array-1' });
    expect(again.replayed).toBe(true);
    await expect(client.plants.createMany([{ name: 'Ivy' }], { idempotencyKey: 'my-array-1' })).rejects.toThrow(
      IdempotencyKeyReusedError,
    );
    server.enqueue(reply(503, 'the store is unavailable; try again', { 'retry-after': '0' }));
    await expect(client.plants.createMany([{ name: 'Moss' }], { idempotencyKey: false })).rejects.toMatchObject({
      status: 503,
      attempts: 1,
    });
    expect(batches().at(-1)?.headers['idempotency-key']).toBeUndefined();
  });

  it('checks the array before sending: the first invalid element is named, nothing is sent', async () => {
    const client = clientFor();
    const attempt = client.plants.createMany([{ name: 'ok' }, { name: '' }, { name: 'x', tag: '' }]);
    await expect(attempt).rejects.toThrow(ValidationError);
    await expect(attempt).rejects.toMatchObject({ problems: ['[1].name: expected 1–200 characters, got 0'] });
    await expect(client.plants.createMany([])).rejects.toMatchObject({
      problems: ['expected a JSON array of 1 to 1000 plants, got none'],
    });
    await expect(client.plants.createMany([{ name: 'x' }], { idempotencyKey: 'a b' })).rejects.toMatchObject({
      problems: [expect.stringMatching(/^idempotencyKey: /)],
    });
    expect(server.requests).toHaveLength(0);
    // validate: false leaves it to the server.
    await expect(clientFor({ validate: false }).plants.createMany([{ name: '' }])).rejects.toThrow(BadRequestError);
  });

  it('rejects with ConflictError for a taken id or one given twice, and creates nothing', async () => {
    stagePlants(server, [{ id: 5, name: 'holder' }]);
    const client = clientFor();
    await expect(client.plants.createMany([{ name: 'a' }, { id: 5, name: 'late' }])).rejects.toThrow(ConflictError);
    await expect(
      client.plants.createMany([
        { id: 6, name: 'a' },
        { id: 6, name: 'b' },
      ]),
    ).rejects.toMatchObject({ status: 409, message: 'id 6 is given twice in the array; nothing was created' });
    expect(server.plants.size).toBe(1);
  });

  it('rejects with PayloadTooLargeError past the server limit', async () => {
    const before = bulkLimit.bytes;
    bulkLimit.bytes = 50;
    try {
      await expect(
        clientFor().plants.createMany(Array.from({ length: 10 }, (_, i) => ({ name: `plant ${i}` }))),
      ).rejects.toThrow(PayloadTooLargeError);
    } finally {
      bulkLimit.bytes = before;
    }
  });

  it('rejects a 201 that lists another number of plants than it sent', async () => {
    server.enqueue((_req, res) => {
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end('[{"id":1,"name":"a"}]');
    });
    await expect(clientFor().plants.createMany([{ name: 'a' }, { name: 'b' }])).rejects.toMatchObject({
      _tag: 'UnexpectedResponse',
    });
  });

  it('is offered as a TaskEither too', async () => {
    const client = clientFor();
    const created = await client.fp.plants.createMany([{ name: 'Fern' }])();
    expect(E.isRight(created) && created.right).toEqual([{ id: 1, name: 'Fern' }]);
    stagePlants(server, [{ id: 9, name: 'holder' }]);
    const refused = await client.fp.plants.createMany([{ id: 9, name: 'late' }])();
    expect(E.isLeft(refused) && refused.left).toBeInstanceOf(ConflictError);
  });
});
