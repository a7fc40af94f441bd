import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  AbortError,
  ConflictError,
  ConnectionError,
  NotFoundError,
  PreconditionFailedError,
  RateLimitedError,
  ServerError,
  ServiceUnavailableError,
  TimeoutError,
  UnexpectedResponseError,
  type PlantStoreClient,
  type PlantStoreClientOptions,
  type RetryInfo,
} from '../src/index.js';
import {
  answerLost,
  drop,
  eventually,
  hang,
  rejection,
  reply,
  fastRetryingClient,
  startFakeServer,
  type FakeServer,
} from './fake-server.js';

let server: FakeServer;
let retries: RetryInfo[];

const clientFor = (options: Partial<PlantStoreClientOptions> = {}): PlantStoreClient =>
  fastRetryingClient(server, retries, options);

beforeEach(async () => {
  retries = [];
  server = await startFakeServer();
  server.plants.set(1, { id: 1, name: 'Fern' } as never);
});

afterEach(async () => {
  await server.close();
});

describe('retries of GET and DELETE', () => {
  it.each([408, 429, 500, 502, 503, 504])('retries a GET after %i and succeeds', async (status) => {
    server.enqueue(reply(status), reply(status));
    expect(await clientFor().plants.get(1)).toEqual({ id: 1, name: 'Fern' });
    expect(server.requests).toHaveLength(3);
    expect(retries.map((r) => r.error.status)).toEqual([status, status]);
    expect(retries.map((r) => r.request.attempt)).toEqual([1, 2]);
  });

  it('sends the same X-Request-Id on every attempt', async () => {
    server.enqueue(reply(503));
    await clientFor().plants.get(1, { requestId: 'same-id' });
    expect(server.requests.map((r) => r.headers['x-request-id'])).toEqual(['same-id', 'same-id']);
  });

  it('gives up after the limit with the last error and the number of attempts', async () => {
    server.enqueue(reply(500), reply(502), reply(504), reply(500));
    const error = await rejection(clientFor().plants.get(1));
    expect(error).toBeInstanceOf(ServerError);
    expect(error.status).toBe(504);
    expect(error.attempts).toBe(3);
    expect(server.requests).toHaveLength(3);
  });

  it('honours a per-call retry limit', async () => {
    server.enqueue(reply(500), reply(500));
    const error = await rejection(clientFor().plants.get(1, { retry: 0 }));
    expect(error.attempts).toBe(1);
    expect(server.requests).toHaveLength(1);
    expect(retries).toHaveLength(0);
  });

  it('does not retry 400, 404 or an undecodable body', async () => {
    const client = clientFor();
    await rejection(client.plants.get(99));
    server.enqueue(reply(400));
    await rejection(client.plants.get(1));
    server.enqueue((_req, res) => res.end('nope'));
    expect(await rejection(client.plants.get(1))).toBeInstanceOf(UnexpectedResponseError);
    expect(server.requests).toHaveLength(3);
    expect(retries).toHaveLength(0);
  });

  it('retries a DELETE after a dropped connection', async () => {
    server.enqueue(drop);
    await clientFor().plants.delete(1);
    expect(server.requests.map((r) => r.method)).toEqual(['DELETE', 'DELETE']);
    expect(retries[0]?.error).toBeInstanceOf(ConnectionError);
    expect(server.plants.has(1)).toBe(false);
  });

  it('keeps every backoff delay below its full-jitter ceiling', async () => {
    server.enqueue(reply(500), reply(500));
    await clientFor({ retry: { limit: 2, baseDelayMs: 4, maxDelayMs: 6 } }).plants.get(1);
    expect(retries).toHaveLength(2);
    expect(retries[0]?.delayMs).toBeLessThan(4);
    expect(retries[1]?.delayMs).toBeLessThan(6);
  });
});

describe('retries of PATCH (plants.update)', () => {
  it.each([500, 503])('retries an update after %i, like a GET (a merge patch is idempotent)', async (status) => {
    server.enqueue(reply(status));
    expect(await clientFor().plants.update(1, { tag: 'shade' })).toEqual({ id: 1, name: 'Fern', tag: 'shade' });
    expect(server.requests.map((r) => r.method)).toEqual(['PATCH', 'PATCH']);
    expect(server.requests.map((r) => r.body)).toEqual(['{"tag":"shade"}', '{"tag":"shade"}']);
  });

  it('retries an update whose answer was lost: the repeat gives the same plant and ETag', async () => {
    server.enqueue(answerLost);
    const updated = await clientFor().plants.update(1, { tag: 'shade' });
    expect(updated).toEqual({ id: 1, name: 'Fern', tag: 'shade' });
    expect(updated.etag).toBe(server.etagOf(1));
    expect(retries[0]?.error).toBeInstanceOf(ConnectionError);
  });

  it('sends the same If-Match on every attempt', async () => {
    const etag = server.etagOf(1) as string;
    server.enqueue(reply(503));
    await clientFor().plants.update(1, { tag: 'shade' }, { ifMatch: etag });
    expect(server.requests.map((r) => r.headers['if-match'])).toEqual([etag, etag]);
  });

  it('answers PreconditionFailedError with attempts > 1 when the lost first attempt of a conditional update was applied (the documented trade-off)', async () => {
    server.enqueue(answerLost);
    const error = await rejection(
      clientFor().plants.update(1, { tag: 'shade' }, { ifMatch: server.etagOf(1) as string }),
    );
    expect(error).toBeInstanceOf(PreconditionFailedError);
    expect(error.attempts).toBe(2);
    expect(server.plants.get(1)).toEqual({ id: 1, name: 'Fern', tag: 'shade' });
  });

  it('with retry: 0 a lost answer is a ConnectionError, so a 412 always means someone else', async () => {
    server.enqueue(answerLost);
    const error = await rejection(
      clientFor().plants.update(1, { tag: 'shade' }, { ifMatch: server.etagOf(1) as string, retry: 0 }),
    );
    expect(error).toBeInstanceOf(ConnectionError);
    expect(server.requests).toHaveLength(1);
  });

  it('does not retry a 412', async () => {
    const error = await rejection(clientFor().plants.update(1, { tag: 'shade' }, { ifMatch: '"stale"' }));
    expect(error).toBeInstanceOf(PreconditionFailedError);
    expect(error.attempts).toBe(1);
    expect(retries).toHaveLength(0);
  });

  it('answers NotFoundError with attempts > 1 when the lost first attempt of a conditional delete was applied', async () => {
    server.enqueue(answerLost);
    const error = await rejection(clientFor().plants.delete(1, { ifMatch: server.etagOf(1) as string }));
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.attempts).toBe(2);
  });
});

describe('Retry-After', () => {
  it('waits the seconds a 429 asks for', async () => {
    server.enqueue(reply(429, 'slow down', { 'retry-after': '1' }));
    expect(await clientFor().plants.get(1)).toEqual({ id: 1, name: 'Fern' });
    expect(retries.map((r) => r.delayMs)).toEqual([1000]);
  });

  it('accepts an HTTP-date (one in the past means now)', async () => {
    server.enqueue(reply(503, 'starting', { 'retry-after': 'Wed, 21 Oct 2015 07:28:00 GMT' }));
    await clientFor().plants.get(1);
    expect(retries.map((r) => r.delayMs)).toEqual([0]);
    expect(retries[0]?.error).toBeInstanceOf(ServiceUnavailableError);
  });

  it('does not retry when the server asks for longer than maxRetryAfterMs', async () => {
    server.enqueue(reply(429, 'come back in an hour', { 'retry-after': '3600' }));
    const error = await rejection(clientFor().plants.get(1));
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as RateLimitedError).retryAfterMs).toBe(3_600_000);
    expect(error.message).toBe('come back in an hour');
    expect(server.requests).toHaveLength(1);
  });

  it('uses backoff when Retry-After is malformed', async () => {
    server.enqueue(reply(429, 'x', { 'retry-after': 'soon' }));
    await clientFor().plants.get(1);
    expect(retries).toHaveLength(1);
    expect(retries[0]?.delayMs).toBeLessThan(1);
  });
});

// Creates with an Idempotency-Key (the default) are retried: see idempotency.test.ts.
describe('a create without an Idempotency-Key (idempotencyKey: false)', () => {
  const noKey = { idempotencyKey: false } as const;

  it('does not retry a POST after a 503', async () => {
    server.enqueue(reply(503));
    expect(await rejection(clientFor().plants.create({ name: 'Fern' }, noKey))).toBeInstanceOf(ServiceUnavailableError);
    expect(server.requests).toHaveLength(1);
    expect(retries).toHaveLength(0);
  });

  it('does not retry a POST after a dropped connection, even with an id', async () => {
    server.enqueue(drop);
    expect(await rejection(clientFor().plants.create({ id: 5, name: 'Fern' }, noKey))).toBeInstanceOf(ConnectionError);
    expect(server.requests).toHaveLength(1);
  });

  it('retries a create that names an id when createWithId is set', async () => {
    server.enqueue(reply(503));
    const plant = await clientFor().plants.create({ id: 5, name: 'Fern' }, { ...noKey, retry: { createWithId: true } });
    expect(plant).toEqual({ id: 5, name: 'Fern' });
    expect(server.requests).toHaveLength(2);
  });

  it('never retries a create without an id, even with createWithId', async () => {
    server.enqueue(reply(503));
    await rejection(
      clientFor({ retry: { limit: 2, baseDelayMs: 1, createWithId: true } }).plants.create({ name: 'Fern' }, noKey),
    );
    expect(server.requests).toHaveLength(1);
  });

  it('answers ConflictError with attempts > 1 when the lost first attempt was stored (the documented trade-off)', async () => {
    server.enqueue((req) => {
      server.plants.set(8, { id: 8, name: 'Fern' } as never);
      req.socket.destroy();
    });
    const error = await rejection(
      clientFor().plants.create({ id: 8, name: 'Fern' }, { ...noKey, retry: { createWithId: true } }),
    );
    expect(error).toBeInstanceOf(ConflictError);
    expect(error.attempts).toBe(2);
  });
});

describe('timeouts and abort', () => {
  it('rejects with TimeoutError when no response arrives in time', async () => {
    server.enqueue(hang);
    const error = await rejection(clientFor().plants.get(1, { timeout: 100, retry: 0 }));
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error._tag).toBe('Timeout');
    expect(error.status).toBeUndefined();
  });

  it('retries a GET that timed out', async () => {
    server.enqueue(hang);
    // Generous enough that the answered retry never times out on a busy machine.
    expect(await clientFor({ timeout: 1000 }).plants.get(1)).toEqual({ id: 1, name: 'Fern' });
    expect(retries[0]?.error).toBeInstanceOf(TimeoutError);
  });

  it('rejects with AbortError when the per-call signal fires mid-request', async () => {
    server.enqueue(hang);
    const controller = new AbortController();
    const reason = new Error('user cancelled');
    const pending = clientFor().plants.get(1, { signal: controller.signal });
    await eventually('the request to reach the server', () => server.requests.length > 0);
    controller.abort(reason);
    const error = await rejection(pending);
    expect(error).toBeInstanceOf(AbortError);
    expect(error.cause).toBe(reason);
    expect(retries).toHaveLength(0);
  });

  it('sends nothing when the client-wide signal has already fired', async () => {
    const controller = new AbortController();
    controller.abort();
    const error = await rejection(clientFor({ signal: controller.signal }).plants.list());
    expect(error).toBeInstanceOf(AbortError);
    expect(error.attempts).toBe(0);
    expect(server.requests).toHaveLength(0);
  });

  it('stops waiting for a retry when aborted during the backoff', async () => {
    server.enqueue(reply(503, 'later', { 'retry-after': '25' }));
    const controller = new AbortController();
    const client = clientFor({ hooks: { beforeRetry: [() => controller.abort()] } });
    const error = await rejection(client.plants.get(1, { signal: controller.signal }));
    expect(error).toBeInstanceOf(AbortError);
    expect(server.requests).toHaveLength(1);
  });

  it('maps an AbortSignal.timeout() to TimeoutError', async () => {
    server.enqueue(hang);
    const error = await rejection(clientFor().plants.get(1, { signal: AbortSignal.timeout(100), retry: 0 }));
    expect(error).toBeInstanceOf(TimeoutError);
  });
});
