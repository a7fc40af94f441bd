// The plant calls and the change feed share one request pipeline (src/request-pipeline.ts): a
// header, a hook or a retry step given to the client reaches both. These tests fail when one path
// gets something the other does not.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RequestInfo, ResponseInfo, RetryInfo } from '../src/index.js';
import {
  eventually,
  fastRetryingClient,
  feedRequests,
  reply,
  startFakeServer,
  TOKEN,
  type FakeServer,
  type RecordedRequest,
} from './fake-server.js';

/**
 * Headers that belong to one request rather than to the client: what it asks for (`accept`), its
 * body, its conditions, where a stream resumes, and got's `accept-encoding` (the feed's stream is
 * read undecoded so that no event waits in a decompressor). Every other header must be the same.
 */
const PER_REQUEST = new Set([
  'host',
  'connection',
  'accept',
  'accept-encoding',
  'content-type',
  'content-length',
  'idempotency-key',
  'if-match',
  'if-none-match',
  'prefer',
  'last-event-id',
]);

const clientHeaders = (request: RecordedRequest | undefined): Record<string, unknown> =>
  Object.fromEntries(Object.entries(request?.headers ?? {}).filter(([name]) => !PER_REQUEST.has(name)));

let server: FakeServer;
let retries: RetryInfo[];

beforeEach(async () => {
  retries = [];
  server = await startFakeServer();
});

afterEach(async () => {
  await server.close();
});

describe('one request pipeline for the plant calls and the change feed', () => {
  it('sends the same headers and runs the same hooks on a plant call, the feed probe and its stream', async () => {
    const prepared: RequestInfo[] = [];
    const answered: ResponseInfo[] = [];
    const client = fastRetryingClient(server, retries, {
      userAgent: 'pipeline-test/1',
      hooks: {
        beforeRequest: [
          (request) => {
            request.headers['x-tenant'] = 'greenhouse';
            prepared.push(request);
          },
        ],
        afterResponse: [(response) => void answered.push(response)],
        beforeRetry: [(retry) => void retries.push(retry)],
      },
    });
    const fern = await client.plants.create({ name: 'Fern' }, { requestId: 'same-call' });
    await client.plants.get(fern.id, { requestId: 'same-call' });
    const controller = new AbortController();
    const feed = client.plants.changes({ requestId: 'same-call', signal: controller.signal })[Symbol.asyncIterator]();
    const first = feed.next();
    // The probe, then the stream from the newest number.
    await eventually('the stream', () => feedRequests(server).length === 2);
    await client.plants.create({ name: 'Moss' }, { requestId: 'same-call' });
    expect(await first).toMatchObject({ value: { type: 'plant.created', data: { name: 'Moss' } } });
    controller.abort();
    await feed.return?.(undefined);

    const get = server.requests.find((r) => r.method === 'GET' && r.url === `/plants/${fern.id}`);
    const [probe, stream] = feedRequests(server);
    expect(probe?.url).toBe('/plants/changes?limit=1');
    expect(stream?.headers.accept).toBe('text/event-stream');
    expect(clientHeaders(get)).toMatchObject({
      authorization: `Bearer ${TOKEN}`,
      'user-agent': 'pipeline-test/1',
      'x-request-id': 'same-call',
      'x-tenant': 'greenhouse',
    });
    expect(clientHeaders(probe)).toEqual(clientHeaders(get));
    expect(clientHeaders(stream)).toEqual(clientHeaders(get));

    const paths = (infos: readonly { readonly url: string }[]) => infos.map((info) => new URL(info.url).pathname);
    expect(paths(prepared)).toEqual(['/plants', `/plants/${fern.id}`, '/plants/changes', '/plants/changes', '/plants']);
    expect(paths(answered.map((response) => response.request))).toEqual(paths(prepared));
    expect(answered.map((response) => response.status)).toEqual([201, 200, 200, 200, 201]);
  });

  it('runs beforeRetry and waits before another attempt on both paths', async () => {
    const client = fastRetryingClient(server, retries);
    const fern = await client.plants.create({ name: 'Fern' });
    server.enqueue(reply(503, 'busy'));
    await client.plants.get(fern.id);
    server.enqueue(reply(503, 'busy'));
    for await (const change of client.plants.changes({ since: 0 })) {
      expect(change.seq).toBe(1);
      break;
    }
    expect(retries.map((retry) => [new URL(retry.request.url).pathname, retry.error.status])).toEqual([
      [`/plants/${fern.id}`, 503],
      ['/plants/changes', 503],
    ]);
  });

  it('aborts both paths with the client-wide signal', async () => {
    const controller = new AbortController();
    const client = fastRetryingClient(server, retries, { signal: controller.signal });
    controller.abort();
    await expect(client.plants.get(1)).rejects.toMatchObject({ name: 'AbortError', attempts: 0 });
    const changes = [];
    for await (const change of client.plants.changes({ since: 0 })) changes.push(change);
    expect(changes).toEqual([]);
    expect(server.requests).toEqual([]);
  });
});
