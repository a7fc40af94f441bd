import { IDEMPOTENCY_KEY_PATTERN } from '@plant-store/domain';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  BadRequestError,
  ConflictError,
  ConnectionError,
  IdempotencyKeyReusedError,
  PlantStoreError,
  ServiceUnavailableError,
  TimeoutError,
  ValidationError,
  type PlantStoreClient,
  type PlantStoreClientOptions,
  type RetryInfo,
} from '../src/index.js';
import {
  answerLost,
  drop,
  hang,
  inProgress,
  rejection,
  reply,
  fastRetryingClient,
  startFakeServer,
  type FakeServer,
} from './fake-server.js';

/** The default key: a time-ordered UUIDv7 (src/uuid-v7.ts). */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let server: FakeServer;
let retries: RetryInfo[];

const clientFor = (options: Partial<PlantStoreClientOptions> = {}): PlantStoreClient =>
  fastRetryingClient(server, retries, options);

const keysSent = (): (string | string[] | undefined)[] => server.requests.map((r) => r.headers['idempotency-key']);

beforeEach(async () => {
  retries = [];
  server = await startFakeServer();
});

afterEach(async () => {
  await server.close();
});

describe('the Idempotency-Key of plants.create', () => {
  it('is a fresh UUIDv7 per call by default, later calls sorting after earlier ones', async () => {
    const client = clientFor();
    await client.plants.create({ name: 'Fern' });
    await client.plants.create({ name: 'Fern' });
    const [first, second] = keysSent();
    expect(first).toMatch(UUID);
    expect(second).toMatch(UUID);
    expect(second).not.toBe(first);
    expect((second ?? '') > (first ?? '') || (second ?? '').slice(0, 13) === (first ?? '').slice(0, 13)).toBe(true);
    expect(server.plants.size).toBe(2);
  });

  it('is your own key when you pass one', async () => {
    await clientFor().plants.create({ name: 'Fern' }, { idempotencyKey: 'order-17:plant-1' });
    expect(keysSent()).toEqual(['order-17:plant-1']);
  });

  it('sends any valid key unchanged', async () => {
    const client = clientFor({ retry: 0 });
    await fc.assert(
      fc.asyncProperty(fc.stringMatching(new RegExp(IDEMPOTENCY_KEY_PATTERN)), async (key) => {
        server.requests.length = 0;
        await client.plants.create({ id: 1, name: 'Fern' }, { idempotencyKey: key }).catch(() => undefined);
        expect(keysSent()).toEqual([key]);
      }),
      { numRuns: 50 },
    );
  });

  it.each([
    ['empty', ''],
    ['with a space', 'two words'],
    ['non-ASCII', 'schlüssel'],
    ['a quote', '"k"'],
    ['too long', 'k'.repeat(256)],
  ])('rejects a key that is %s with ValidationError and sends nothing', async (_, key) => {
    const error = await rejection(clientFor().plants.create({ name: 'Fern' }, { idempotencyKey: key }));
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).problems).toEqual([
      expect.stringMatching(/^idempotencyKey: expected 1–255 characters from/),
    ]);
    expect(server.requests).toHaveLength(0);
  });

  it('with validate: false sends your key as given and lets the server judge it', async () => {
    const error = await rejection(
      clientFor({ validate: false }).plants.create({ name: 'Fern' }, { idempotencyKey: '"k' }),
    );
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error.status).toBe(400);
    expect(error.message).toMatch(/^Idempotency-Key:/);
    expect(keysSent()).toEqual(['"k']);
  });

  it('is not sent with idempotencyKey: false', async () => {
    await clientFor().plants.create({ name: 'Fern' }, { idempotencyKey: false });
    expect(server.requests[0]?.headers).not.toHaveProperty('idempotency-key');
  });

  it('is what a beforeRequest hook sees', async () => {
    const seen: (string | undefined)[] = [];
    await clientFor({
      hooks: { beforeRequest: [(request) => void seen.push(request.headers['idempotency-key'])] },
    }).plants.create({ name: 'Fern' }, { idempotencyKey: 'hooked' });
    expect(seen).toEqual(['hooked']);
  });
});

describe('retries of a create with a key', () => {
  it('sends the same key on every attempt after 503s', async () => {
    server.enqueue(reply(503), reply(503));
    expect(await clientFor().plants.create({ name: 'Fern' })).toEqual({ id: 1, name: 'Fern' });
    const keys = keysSent();
    expect(keys).toHaveLength(3);
    expect(new Set(keys).size).toBe(1);
    expect(retries.map((r) => r.error)).toEqual([
      expect.any(ServiceUnavailableError),
      expect.any(ServiceUnavailableError),
    ]);
  });

  it.each([408, 429, 500, 502, 504])('retries after %i like a GET', async (status) => {
    server.enqueue(reply(status));
    await clientFor().plants.create({ name: 'Fern' });
    expect(server.requests).toHaveLength(2);
  });

  it('retries after a connection reset with the same key', async () => {
    server.enqueue(drop);
    const plant = await clientFor().plants.create({ name: 'Fern' }, { idempotencyKey: 'reset-1' });
    expect(plant).toEqual({ id: 1, name: 'Fern' });
    expect(plant.replayed).toBe(false);
    expect(keysSent()).toEqual(['reset-1', 'reset-1']);
    expect(retries[0]?.error).toBeInstanceOf(ConnectionError);
  });

  it('retries after a timeout with the same key', async () => {
    server.enqueue(hang);
    await clientFor({ timeout: 1000 }).plants.create({ name: 'Fern' }, { idempotencyKey: 'slow-1' });
    expect(keysSent()).toEqual(['slow-1', 'slow-1']);
    expect(retries[0]?.error).toBeInstanceOf(TimeoutError);
  });

  it('stores the plant once when the first answer was lost: the retry gets the replay', async () => {
    server.enqueue(answerLost);
    const plant = await clientFor().plants.create({ name: 'Fern', tag: 'shade' });
    expect(plant).toEqual({ id: 1, name: 'Fern', tag: 'shade' });
    expect(plant.replayed).toBe(true);
    expect(server.plants.size).toBe(1);
    expect(server.requests).toHaveLength(2);
  });

  it('waits for the in-progress 409 and retries it (Retry-After: 1)', async () => {
    server.enqueue(inProgress('1'));
    const plant = await clientFor().plants.create({ name: 'Fern' });
    expect(plant).toEqual({ id: 1, name: 'Fern' });
    expect(retries).toHaveLength(1);
    expect(retries[0]?.delayMs).toBe(1000);
    expect(retries[0]?.error).toBeInstanceOf(ConflictError);
    expect((retries[0]?.error as ConflictError).retryAfterMs).toBe(1000);
    expect(new Set(keysSent()).size).toBe(1);
  });

  it('gives up on the in-progress 409 after the limit, with retryAfterMs and the key on the error', async () => {
    server.enqueue(inProgress(), inProgress(), inProgress());
    const error = await rejection(clientFor().plants.create({ name: 'Fern' }, { idempotencyKey: 'busy' }));
    expect(error).toBeInstanceOf(ConflictError);
    expect(error).toMatchObject({ attempts: 3, retryAfterMs: 0, replayed: false, idempotencyKey: 'busy' });
    expect(error.message).toBe('a request with Idempotency-Key "busy" is still in progress');
  });

  it('does not retry the in-progress 409 when it asks for longer than maxRetryAfterMs', async () => {
    server.enqueue(inProgress('60'));
    const error = await rejection(clientFor().plants.create({ name: 'Fern' }));
    expect(error).toMatchObject({ _tag: 'Conflict', retryAfterMs: 60_000, attempts: 1 });
    expect(server.requests).toHaveLength(1);
  });

  it('does not retry the 409 for a taken id (it has no Retry-After)', async () => {
    server.plants.set(7, { id: 7, name: 'Ivy' } as never);
    const error = await rejection(clientFor().plants.create({ id: 7, name: 'Fern' }));
    expect(error).toBeInstanceOf(ConflictError);
    expect(error).toMatchObject({ status: 409, attempts: 1, replayed: false, retryAfterMs: undefined });
    expect(server.requests).toHaveLength(1);
    expect(retries).toHaveLength(0);
  });

  it('is not retried with idempotencyKey: false, even after a 503 or a reset', async () => {
    server.enqueue(reply(503), drop);
    const client = clientFor();
    expect(await rejection(client.plants.create({ name: 'Fern' }, { idempotencyKey: false }))).toBeInstanceOf(
      ServiceUnavailableError,
    );
    expect(await rejection(client.plants.create({ name: 'Fern' }, { idempotencyKey: false }))).toBeInstanceOf(
      ConnectionError,
    );
    expect(server.requests).toHaveLength(2);
    expect(retries).toHaveLength(0);
  });

  it('honours retry: 0 on the call', async () => {
    server.enqueue(reply(503));
    const error = await rejection(clientFor().plants.create({ name: 'Fern' }, { retry: 0 }));
    expect(error).toMatchObject({ attempts: 1, idempotencyKey: expect.stringMatching(UUID) });
  });

  it('lets you repeat a failed create safely with the key from the error', async () => {
    server.enqueue(answerLost, drop, drop);
    const client = clientFor();
    const error = await rejection(client.plants.create({ name: 'Fern' }));
    expect(error).toBeInstanceOf(ConnectionError);
    const plant = await client.plants.create({ name: 'Fern' }, { idempotencyKey: error.idempotencyKey as string });
    expect(plant).toEqual({ id: 1, name: 'Fern' });
    expect(plant.replayed).toBe(true);
    expect(server.plants.size).toBe(1);
  });
});

describe('replays', () => {
  it('marks a replayed create with a non-enumerable replayed: true', async () => {
    const client = clientFor();
    const first = await client.plants.create({ name: 'Fern', tag: 'shade' }, { idempotencyKey: 'k1' });
    const again = await client.plants.create({ name: 'Fern', tag: 'shade' }, { idempotencyKey: 'k1' });
    expect(first.replayed).toBe(false);
    expect(again.replayed).toBe(true);
    expect(again).toEqual(first);
    expect(again).toStrictEqual({ id: 1, name: 'Fern', tag: 'shade' });
    expect(server.requests[1]?.headers['idempotency-key']).toBe('k1');
    expect(server.plants.size).toBe(1);
  });

  it('keeps replayed out of keys, spreading and JSON', async () => {
    const plant = await clientFor().plants.create({ name: 'Fern' });
    expect(Object.keys(plant)).toEqual(['id', 'name']);
    expect({ ...plant }).toEqual({ id: 1, name: 'Fern' });
    expect('replayed' in { ...plant }).toBe(false);
    expect(JSON.stringify(plant)).toBe('{"id":1,"name":"Fern"}');
    expect(Object.getOwnPropertyDescriptor(plant, 'replayed')).toEqual({
      value: false,
      enumerable: false,
      writable: false,
      configurable: false,
    });
  });

  it('rejects a replayed id-taken 409 with ConflictError whose replayed is true', async () => {
    server.plants.set(7, { id: 7, name: 'Ivy' } as never);
    const client = clientFor();
    const first = await rejection(client.plants.create({ id: 7, name: 'Fern' }, { idempotencyKey: 'taken' }));
    const again = await rejection(client.plants.create({ id: 7, name: 'Fern' }, { idempotencyKey: 'taken' }));
    expect(first).toMatchObject({ _tag: 'Conflict', replayed: false });
    expect(again).toBeInstanceOf(ConflictError);
    expect(again).toMatchObject({
      status: 409,
      replayed: true,
      message: 'a plant with id 7 already exists',
      attempts: 1,
    });
  });

  it('gets the replayed 409 when the lost first attempt met a taken id', async () => {
    server.plants.set(7, { id: 7, name: 'Ivy' } as never);
    server.enqueue(answerLost);
    const error = await rejection(clientFor().plants.create({ id: 7, name: 'Fern' }));
    expect(error).toMatchObject({ _tag: 'Conflict', replayed: true, attempts: 2 });
  });
});

describe('a key reused with a different request', () => {
  it('rejects with IdempotencyKeyReusedError (422), not retried', async () => {
    const client = clientFor();
    await client.plants.create({ name: 'Fern' }, { idempotencyKey: 'reused' });
    const error = await rejection(client.plants.create({ name: 'Ivy' }, { idempotencyKey: 'reused' }));
    expect(error).toBeInstanceOf(IdempotencyKeyReusedError);
    expect(error).toBeInstanceOf(PlantStoreError);
    expect(error).toMatchObject({
      _tag: 'IdempotencyKeyReused',
      name: 'IdempotencyKeyReusedError',
      status: 422,
      attempts: 1,
      idempotencyKey: 'reused',
      message: 'Idempotency-Key "reused" was already used with a different request',
    });
    expect(server.plants.size).toBe(1);
  });
});
