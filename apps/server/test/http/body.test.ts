import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, expectError, request, startTestServer, type TestServer } from './support.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const post = (headers: Record<string, string | number>, body?: string | Buffer, chunks?: (string | Buffer)[]) =>
  request(server, '/plants', {
    method: 'POST',
    headers: { ...bearer(server.tokens.all), ...headers },
    ...(body === undefined ? {} : { body }),
    ...(chunks === undefined ? {} : { chunks }),
  });

const plant = JSON.stringify({ name: 'Aloe' });

describe('Content-Type', () => {
  it.each([
    'application/json',
    'application/json; charset=utf-8',
    'application/json;charset=UTF-8',
    'Application/JSON; Charset="utf-8"',
    'application/json ; charset = utf-8',
  ])('accepts %s', async (type) => {
    expect((await post({ 'content-type': type }, plant)).status).toBe(201);
  });

  it.each([
    'text/plain',
    'application/x-www-form-urlencoded',
    'application/vnd.api+json',
    'application/json-patch+json',
    'application/csp-report',
    'application/json; charset=latin1',
    'application/json; charset=utf-16',
    'application/jsonx',
    'multipart/form-data; boundary=x',
  ])('answers 415 for %s', async (type) => {
    expectError(await post({ 'content-type': type }, plant), 415, 'expected Content-Type application/json');
  });

  it('answers 415 when Content-Type is missing', async () => {
    expectError(await post({}, plant), 415, 'expected Content-Type application/json, got none');
  });
});

describe('Content-Encoding', () => {
  it('answers 415 for gzip and never inflates it (a gzip bomb stays compressed)', async () => {
    const bomb = gzipSync(Buffer.alloc(10 * 1024 * 1024, 0x20));
    expect(bomb.length).toBeLessThan(16 * 1024);
    expectError(
      await post({ 'content-type': 'application/json', 'content-encoding': 'gzip' }, bomb),
      415,
      'compressed request bodies are not accepted',
    );
  });

  it.each(['deflate', 'br', 'gzip, identity', 'x-unknown'])('answers 415 for %s', async (encoding) => {
    expectError(await post({ 'content-type': 'application/json', 'content-encoding': encoding }, plant), 415);
  });

  it.each(['identity', 'IDENTITY'])('accepts %s', async (encoding) => {
    expect((await post({ 'content-type': 'application/json', 'content-encoding': encoding }, plant)).status).toBe(201);
  });
});

describe('size limit (16 KiB as sent)', () => {
  const big = (bytes: number) => JSON.stringify({ name: 'x', tag: 'y'.repeat(bytes - 21) });

  it('accepts a body of exactly the limit (then rejects its content, not its size)', async () => {
    const body = big(16 * 1024);
    expect(Buffer.byteLength(body)).toBe(16 * 1024);
    expectError(await post({ 'content-type': 'application/json' }, body), 400, 'tag: expected 1–100 characters');
  });

  it('answers 413 from Content-Length, one byte over', async () => {
    expectError(
      await post({ 'content-type': 'application/json' }, big(16 * 1024 + 1)),
      413,
      'request body larger than 16384 bytes',
    );
  });

  it('answers 413 for a chunked body without Content-Length once the streamed bytes pass the limit', async () => {
    const piece = 'y'.repeat(4096);
    const chunks = ['{"name":"x","tag":"', piece, piece, piece, piece, '"}'];
    expectError(
      await post({ 'content-type': 'application/json' }, undefined, chunks),
      413,
      'request body larger than 16384 bytes',
    );
  });

  it('counts bytes as sent, not characters: 6000 three-byte characters (18000 bytes) → 413', async () => {
    expectError(await post({ 'content-type': 'application/json' }, JSON.stringify({ name: '€'.repeat(6000) })), 413);
  });

  it('accepts a chunked body under the limit', async () => {
    expect((await post({ 'content-type': 'application/json' }, undefined, ['{"name":', '"Chunked"}'])).status).toBe(
      201,
    );
  });

  it('honours a configured limit', async () => {
    const small = await startTestServer({ bodyLimitBytes: 64 });
    try {
      const send = (body: string) =>
        request(small, '/plants', {
          method: 'POST',
          headers: { ...bearer(small.tokens.all), 'content-type': 'application/json' },
          body,
        });
      expect((await send(JSON.stringify({ name: 'n'.repeat(40) }))).status).toBe(201);
      expectError(await send(JSON.stringify({ name: 'n'.repeat(60) })), 413, 'request body larger than 64 bytes');
    } finally {
      await small.close();
    }
  });
});

describe('UTF-8 and JSON', () => {
  it.each([
    ['a lone 0xFF byte', Buffer.from([0xff])],
    ['a truncated 4-byte sequence', Buffer.from([0xf0, 0x9f, 0x98])],
    ['an overlong encoding of "/"', Buffer.from([0xc0, 0xaf])],
    ['an encoded surrogate (CESU-8)', Buffer.from([0xed, 0xa0, 0x80])],
    ['a Latin-1 é', Buffer.from([0xe9])],
  ])('answers 400 for %s inside a string', async (_what, bytes) => {
    const body = Buffer.concat([Buffer.from('{"name":"a'), bytes, Buffer.from('b"}')]);
    expectError(await post({ 'content-type': 'application/json' }, body), 400, 'request body is not valid UTF-8');
  });

  it('answers 400 for invalid UTF-8 that also breaks the JSON', async () => {
    expectError(
      await post({ 'content-type': 'application/json' }, Buffer.from([0x7b, 0xff, 0xfe])),
      400,
      'request body is not valid UTF-8',
    );
  });

  it('accepts a real U+FFFD sent as valid UTF-8', async () => {
    const reply = await post({ 'content-type': 'application/json' }, Buffer.from('{"name":"a\uFFFDb"}', 'utf8'));
    expect(reply.status).toBe(201);
    expect(reply.json).toEqual({ name: 'a\uFFFDb' });
  });

  it('answers 400 with the parser message for malformed JSON', async () => {
    expectError(
      await post({ 'content-type': 'application/json' }, '{"name": "x"'),
      400,
      /^request body is not valid JSON: /,
    );
  });

  it('answers 400 for a body that is only whitespace', async () => {
    expectError(await post({ 'content-type': 'application/json' }, '   '), 400, 'request body');
  });
});
