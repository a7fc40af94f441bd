import { Agent } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  BadRequestError,
  ConflictError,
  ConnectionError,
  createPlantStoreClient,
  ForbiddenError,
  IdempotencyKeyReusedError,
  NotFoundError,
  PayloadTooLargeError,
  PlantStoreError,
  RateLimitedError,
  ServerError,
  ServiceUnavailableError,
  TimeoutError,
  UnauthorizedError,
  UnexpectedResponseError,
  UnsupportedMediaTypeError,
  ValidationError,
  type Plant,
  type PlantStoreClient,
  type PlantStoreClientOptions,
} from '../src/index.js';
import {
  eventually,
  raw,
  READ_ONLY_TOKEN,
  rejection,
  reply,
  startFakeServer,
  TOKEN,
  type FakeServer,
} from './fake-server.js';

let server: FakeServer;

const clientFor = (options: Partial<PlantStoreClientOptions> = {}): PlantStoreClient =>
  createPlantStoreClient({
    baseUrl: server.url,
    token: TOKEN,
    retry: { limit: 2, baseDelayMs: 1, maxDelayMs: 5 },
    ...options,
  });

beforeEach(async () => {
  server = await startFakeServer();
});

afterEach(async () => {
  await server.close();
});

describe('plants.create', () => {
  it('sends the encoded body with auth and returns the plant with the id from Location', async () => {
    const client = clientFor();
    const plant = await client.plants.create({ name: 'Monstera', tag: 'indoor' });
    expect(plant).toEqual({ id: 1, name: 'Monstera', tag: 'indoor' });
    const [request] = server.requests;
    expect(request?.method).toBe('POST');
    expect(request?.url).toBe('/plants');
    expect(request?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(request?.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(request?.headers['user-agent']).toMatch(/^@plant-store\/client\//);
    expect(JSON.parse(request?.body ?? '')).toEqual({ name: 'Monstera', tag: 'indoor' });
  });

  it('keeps a caller-chosen id and omits an absent tag', async () => {
    const plant = await clientFor().plants.create({ id: 42, name: 'Fern' });
    expect(plant).toEqual({ id: 42, name: 'Fern' });
    expect(server.plants.get(42)).toEqual({ id: 42, name: 'Fern' });
  });

  it('rejects with ConflictError for a taken id, carrying the server body and request id', async () => {
    const client = clientFor();
    await client.plants.create({ id: 7, name: 'Fern' });
    const error = await rejection(client.plants.create({ id: 7, name: 'Other' }, { requestId: 'req-123' }));
    expect(error).toBeInstanceOf(ConflictError);
    expect(error._tag).toBe('Conflict');
    expect(error.status).toBe(409);
    expect(error.body).toEqual({ error: 409, message: 'a plant with id 7 already exists' });
    expect(error.message).toBe('a plant with id 7 already exists');
    expect(error.requestId).toBe('req-123');
    expect(error.attempts).toBe(1);
  });

  it('validates input before sending: ValidationError, a BadRequestError, and no request', async () => {
    const error = await rejection(clientFor().plants.create({ name: '', tag: 'x'.repeat(101) }));
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error._tag).toBe('Validation');
    expect((error as ValidationError).problems).toEqual([
      'name: expected 1–200 characters, got 0',
      'tag: expected 1–100 characters, got 101',
    ]);
    expect(error.status).toBeUndefined();
    expect(server.requests).toHaveLength(0);
  });

  it('rejects unknown members client-side', async () => {
    const input = { name: 'Fern', colour: 'green' } as { name: string };
    const error = await rejection(clientFor().plants.create(input));
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.message).toMatch(/^colour: unknown member/);
  });

  it('with validate: false leaves the check to the server (BadRequestError with status 400)', async () => {
    const error = await rejection(clientFor({ validate: false }).plants.create({ name: '' }));
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error).not.toBeInstanceOf(ValidationError);
    expect(error._tag).toBe('BadRequest');
    expect(error.status).toBe(400);
    expect(error.message).toMatch(/name/);
  });

  it('reads an absolute Location and a base URL with a path prefix', async () => {
    await server.close();
    server = await startFakeServer({ prefix: '/api/v1' });
    const client = clientFor();
    expect(await client.plants.create({ name: 'Cactus' })).toEqual({ id: 1, name: 'Cactus' });
    expect(server.requests[0]?.url).toBe('/api/v1/plants');
    server.enqueue(
      raw(201, '{"name":"Aloe"}', { 'content-type': 'application/json', location: `${server.url}/plants/9` }),
    );
    expect(await client.plants.create({ name: 'Aloe' })).toEqual({ id: 9, name: 'Aloe' });
  });

  it.each([
    ['missing', {}],
    ['not a plant path', { location: '/trees/3' }],
    ['a bad id', { location: '/plants/03' }],
    ['id zero', { location: '/plants/0' }],
    ['another origin', { location: 'http://example.invalid/plants/3' }],
  ])('rejects a %s Location with UnexpectedResponseError', async (_, headers: Record<string, string>) => {
    server.enqueue(raw(201, '{"name":"Fern"}', { 'content-type': 'application/json', ...headers }));
    const error = await rejection(clientFor().plants.create({ name: 'Fern' }));
    expect(error).toBeInstanceOf(UnexpectedResponseError);
    expect(error.status).toBe(201);
    expect((error as UnexpectedResponseError).problems[0]).toMatch(/Location/);
  });

  it('rejects a 201 body that does not decode, with readable messages', async () => {
    server.enqueue(raw(201, '{"name":null}', { 'content-type': 'application/json', location: '/plants/3' }));
    const error = await rejection(clientFor().plants.create({ name: 'Fern' }));
    expect(error).toBeInstanceOf(UnexpectedResponseError);
    expect((error as UnexpectedResponseError).problems).toEqual(['body.name: expected a string, got null']);
  });
});

describe('plants.get', () => {
  it('returns the decoded plant', async () => {
    const client = clientFor();
    await client.plants.create({ id: 5, name: 'Ivy', tag: 'hanging' });
    expect(await client.plants.get(5)).toEqual({ id: 5, name: 'Ivy', tag: 'hanging' });
    expect(server.requests[1]?.url).toBe('/plants/5');
  });

  it('rejects with NotFoundError for an unknown id', async () => {
    const error = await rejection(clientFor().plants.get(99));
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({
      _tag: 'NotFound',
      status: 404,
      body: { error: 404, message: 'no plant with id 99' },
    });
    expect(error.requestId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('rejects an invalid id with ValidationError and sends nothing', async () => {
    for (const id of [0, -1, 1.5, Number.MAX_SAFE_INTEGER + 1]) {
      const error = await rejection(clientFor().plants.get(id));
      expect(error).toBeInstanceOf(ValidationError);
      expect(error.message).toMatch(/^id: expected an integer/);
    }
    expect(server.requests).toHaveLength(0);
  });

  it.each([
    ['not JSON', '<html>oops</html>', /not JSON/],
    ['empty', '', /empty/],
    ['invalid UTF-8', Buffer.from([0x7b, 0xff, 0x7d]), /UTF-8/],
    ['a wrong shape', '{"id":"5","name":"Ivy"}', /^body\.id: expected an integer/],
    ['a bad name', '{"id":5,"name":"a\\u0000b"}', /^body\.name: expected no control characters/],
  ])('rejects a body that is %s with UnexpectedResponseError', async (_, body: string | Buffer, problem: RegExp) => {
    server.enqueue(raw(200, body));
    const error = await rejection(clientFor().plants.get(5));
    expect(error).toBeInstanceOf(UnexpectedResponseError);
    expect(error._tag).toBe('UnexpectedResponse');
    expect((error as UnexpectedResponseError).problems[0]).toMatch(problem);
  });

  it('ignores members a newer server may add', async () => {
    server.enqueue(raw(200, '{"id":5,"name":"Ivy","colour":"green"}'));
    expect(await clientFor().plants.get(5)).toEqual({ id: 5, name: 'Ivy' });
  });
});

describe('plants.delete', () => {
  it('deletes and then the plant is gone', async () => {
    const client = clientFor();
    await client.plants.create({ id: 3, name: 'Basil' });
    await expect(client.plants.delete(3)).resolves.toBeUndefined();
    expect(server.plants.has(3)).toBe(false);
    expect(server.requests[1]).toMatchObject({ method: 'DELETE', url: '/plants/3' });
    expect(await rejection(client.plants.delete(3))).toBeInstanceOf(NotFoundError);
  });
});

describe('plants.list and plants.all', () => {
  const seed = async (client: PlantStoreClient, count: number): Promise<void> => {
    for (let id = 1; id <= count; id++) await client.plants.create({ id, name: `plant ${id}` });
  };

  it('returns one page and the next query from Link', async () => {
    const client = clientFor();
    await seed(client, 5);
    const first = await client.plants.list({ limit: 2 });
    expect(first.plants.map((p) => p.id)).toEqual([1, 2]);
    expect(first.next).toEqual({ limit: 2, after: 2 });
    const last = await client.plants.list({ limit: 2, after: 4 });
    expect(last).toEqual({ plants: [{ id: 5, name: 'plant 5' }] });
    expect(server.requests.at(-1)?.url).toBe('/plants?limit=2&after=4');
  });

  it('sends no query for the defaults', async () => {
    expect(await clientFor().plants.list()).toEqual({ plants: [] });
    expect(server.requests[0]?.url).toBe('/plants');
  });

  it('validates limit and after client-side', async () => {
    const client = clientFor();
    expect((await rejection(client.plants.list({ limit: 0 }))).message).toMatch(/^limit:/);
    expect((await rejection(client.plants.list({ limit: 1001 }))).message).toMatch(/^limit:/);
    expect((await rejection(client.plants.list({ after: -1 }))).message).toMatch(/^after:/);
    expect(server.requests).toHaveLength(0);
  });

  it('all() iterates every plant across pages by following Link', async () => {
    const client = clientFor();
    await seed(client, 7);
    const seen: Plant[] = [];
    for await (const plant of client.plants.all({ limit: 3 })) seen.push(plant);
    expect(seen.map((p) => p.id)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(server.requests.slice(7).map((r) => r.url)).toEqual([
      '/plants?limit=3',
      '/plants?limit=3&after=3',
      '/plants?limit=3&after=6',
    ]);
  });

  it('all() follows a Link that exactly fills the last page and stops on the empty page', async () => {
    const client = clientFor();
    await seed(client, 4);
    const ids: number[] = [];
    for await (const plant of client.plants.all({ limit: 2 })) ids.push(plant.id);
    expect(ids).toEqual([1, 2, 3, 4]);
  });

  it('parses a Link with several values, odd spacing and a quoted multi-rel', async () => {
    const body = JSON.stringify([{ id: 1, name: 'a' }]);
    server.enqueue(
      raw(200, body, {
        'content-type': 'application/json',
        link: '</plants?limit=1&after=0>; rel="prev first", </plants?after=1&limit=1> ;title="a, b; c" ; REL = "last  next"',
      }),
    );
    expect((await clientFor().plants.list({ limit: 1 })).next).toEqual({ limit: 1, after: 1 });
  });

  it('rejects a Link next without a valid after', async () => {
    server.enqueue(raw(200, '[]', { 'content-type': 'application/json', link: '</plants?limit=2&after=x>; rel=next' }));
    const error = await rejection(clientFor().plants.list({ limit: 2 }));
    expect(error).toBeInstanceOf(UnexpectedResponseError);
    expect(error.message).toMatch(/Link/);
  });

  it('all() stops with UnexpectedResponseError when Link does not advance', async () => {
    const page = JSON.stringify([{ id: 1, name: 'a' }]);
    const headers = { 'content-type': 'application/json', link: '</plants?limit=1&after=1>; rel="next"' };
    server.enqueue(raw(200, page, headers), raw(200, page, headers));
    const ids: number[] = [];
    const iterate = async () => {
      for await (const plant of clientFor().plants.all({ limit: 1 })) ids.push(plant.id);
    };
    expect(await rejection(iterate())).toBeInstanceOf(UnexpectedResponseError);
    expect(ids).toEqual([1, 1]);
  });

  it('rejects a page that is not an array', async () => {
    server.enqueue(raw(200, '{"plants":[]}'));
    const error = await rejection(clientFor().plants.list());
    expect(error).toBeInstanceOf(UnexpectedResponseError);
  });
});

describe('error classes', () => {
  it.each([
    [400, BadRequestError, 'BadRequest'],
    [401, UnauthorizedError, 'Unauthorized'],
    [403, ForbiddenError, 'Forbidden'],
    [404, NotFoundError, 'NotFound'],
    [409, ConflictError, 'Conflict'],
    [413, PayloadTooLargeError, 'PayloadTooLarge'],
    [415, UnsupportedMediaTypeError, 'UnsupportedMediaType'],
    [422, IdempotencyKeyReusedError, 'IdempotencyKeyReused'],
    [429, RateLimitedError, 'RateLimited'],
    [500, ServerError, 'Server'],
    [502, ServerError, 'Server'],
    [503, ServiceUnavailableError, 'ServiceUnavailable'],
    [504, ServerError, 'Server'],
    [405, UnexpectedResponseError, 'UnexpectedResponse'],
    [408, TimeoutError, 'Timeout'],
  ])('maps %i to its class with status, body and request id', async (status, errorClass, tag) => {
    server.enqueue(reply(status, `scripted ${status}`, { 'x-request-id': 'server-id' }));
    const error = await rejection(clientFor({ retry: 0 }).plants.create({ name: 'Fern' }));
    expect(error).toBeInstanceOf(errorClass);
    expect(error).toBeInstanceOf(PlantStoreError);
    expect(error).toBeInstanceOf(Error);
    expect(error._tag).toBe(tag);
    expect(error.name).toBe(errorClass.name);
    expect(error.status).toBe(status);
    expect(error.body).toEqual({ error: status, message: `scripted ${status}` });
    expect(error.requestId).toBe('server-id');
    expect(error.method).toBe('POST');
  });

  it('keeps the status of an error response whose body is not the error body', async () => {
    server.enqueue(raw(502, '<h1>Bad gateway</h1>', { 'content-type': 'text/html' }));
    const error = await rejection(clientFor({ retry: 0 }).plants.get(1));
    expect(error).toBeInstanceOf(ServerError);
    expect(error.status).toBe(502);
    expect(error.body).toBeUndefined();
    expect(error.message).toBe(`GET ${server.url}/plants/1 answered HTTP 502`);
  });

  it('is UnauthorizedError for an unknown token and ForbiddenError for a read-only one', async () => {
    expect(await rejection(clientFor({ token: 'nope' }).plants.get(1))).toBeInstanceOf(UnauthorizedError);
    expect(await rejection(clientFor({ token: READ_ONLY_TOKEN }).plants.create({ name: 'Fern' }))).toBeInstanceOf(
      ForbiddenError,
    );
    expect(await clientFor({ token: READ_ONLY_TOKEN }).plants.list()).toEqual({ plants: [] });
  });

  it('is ConnectionError with the code when nothing listens', async () => {
    const url = server.url;
    await server.close();
    const error = await rejection(createPlantStoreClient({ baseUrl: url, token: TOKEN, retry: 0 }).plants.get(1));
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as ConnectionError).code).toBe('ECONNREFUSED');
    expect(error.status).toBeUndefined();
    expect(error.requestId).toMatch(/^[0-9a-f-]{36}$/);
    server = await startFakeServer();
  });

  it('rejects a 3xx instead of following it', async () => {
    server.enqueue(raw(302, '', { location: '/elsewhere' }));
    const error = await rejection(clientFor().plants.get(1));
    expect(error).toBeInstanceOf(UnexpectedResponseError);
    expect(error.status).toBe(302);
  });
});

describe('createPlantStoreClient', () => {
  it('throws TypeError for bad options', () => {
    expect(() => createPlantStoreClient({ baseUrl: 'ftp://x', token: TOKEN })).toThrow(TypeError);
    expect(() => createPlantStoreClient({ baseUrl: 'http://x', token: '' })).toThrow(TypeError);
    expect(() => createPlantStoreClient({ baseUrl: 'http://x', token: 'a b' })).toThrow(TypeError);
    expect(() => createPlantStoreClient({ baseUrl: 'http://x', token: TOKEN, timeout: 0 })).toThrow(TypeError);
    expect(() => createPlantStoreClient({ baseUrl: 'http://x', token: TOKEN, retry: -1 })).toThrow(TypeError);
  });

  it('sends a custom user agent and runs hooks', async () => {
    const seen: string[] = [];
    const client = clientFor({
      userAgent: 'my-app/1.0',
      hooks: {
        beforeRequest: [(request) => void (request.headers['x-trace'] = 'abc')],
        afterResponse: [(response) => void seen.push(`${response.request.method} ${response.status}`)],
      },
    });
    await client.plants.list();
    expect(server.requests[0]?.headers['user-agent']).toBe('my-app/1.0');
    expect(server.requests[0]?.headers['x-trace']).toBe('abc');
    expect(seen).toEqual(['GET 200']);
  });

  it('sends through the given agent', async () => {
    const agent = new Agent({ keepAlive: true });
    let freed = 0;
    agent.on('free', () => freed++);
    try {
      await clientFor({ agent }).plants.list();
      await eventually('the socket to go back to the agent', () => freed > 0);
      expect(freed).toBe(1);
    } finally {
      agent.destroy();
    }
  });

  it('rejects a malformed requestId with TypeError', async () => {
    await expect(clientFor().plants.get(1, { requestId: 'has space' })).rejects.toThrow(TypeError);
  });
});
