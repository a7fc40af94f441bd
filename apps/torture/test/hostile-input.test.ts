import { brotliCompressSync, constants as zlibConstants, deflateSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorBodyProblems, rawExchange, type RawOutcome } from './support/http.js';
import { knobs } from './support/knobs.js';
import { rssBytes, startServer, tempDir, type ServerProcess } from './support/processes.js';
import { listAll, type StoredPlant } from './support/store.js';
import { createToken } from './support/token.js';

/**
 * Hostile input: fast-check generated bodies, headers, paths and query strings,
 * sent as raw bytes over node:net (so nothing is normalised on the way) and through fetch. The
 * server must never answer 5xx, never die, keep its RSS bounded, answer every error with the
 * contract's JSON body, and hold exactly the plants of its 201 responses at the end.
 */

/** Generous: several times the server's idle RSS; a leak of the inflated bomb or of parsed bodies would blow past this. */
const RSS_BOUND = 300 * 1024 * 1024;
/** A large body limit, so that deep nesting and huge numbers reach the JSON parser instead of stopping at 413. */
const BODY_LIMIT = 1024 * 1024;

type Header = readonly [string, string | Buffer];

interface RawRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: readonly Header[];
  readonly body?: Buffer;
  /** 'auto': a correct Content-Length; 'chunked': Transfer-Encoding chunked; 'none': neither. */
  readonly framing?: 'auto' | 'chunked' | 'none';
}

const toBytes = ({ method, path, headers, body, framing = 'auto' }: RawRequest): Buffer => {
  const parts: Buffer[] = [
    Buffer.from(`${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n`, 'latin1'),
  ];
  for (const [name, value] of headers)
    parts.push(Buffer.concat([Buffer.from(`${name}: `, 'latin1'), Buffer.from(value), Buffer.from('\r\n')]));
  if (body !== undefined && framing === 'auto') parts.push(Buffer.from(`Content-Length: ${body.length}\r\n`));
  if (body !== undefined && framing === 'chunked') parts.push(Buffer.from('Transfer-Encoding: chunked\r\n'));
  parts.push(Buffer.from('\r\n'));
  if (body !== undefined && framing === 'chunked') {
    parts.push(Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from('\r\n0\r\n\r\n'));
  } else if (body !== undefined) {
    parts.push(body);
  }
  return Buffer.concat(parts);
};

const describeRequest = (r: RawRequest): string =>
  JSON.stringify({
    method: r.method,
    path: r.path.length > 200 ? `${r.path.slice(0, 200)}…(${r.path.length})` : r.path,
    headers: r.headers.map(([n, v]) => [n, typeof v === 'string' ? v.slice(0, 200) : `<${v.length} bytes>`]),
    body:
      r.body === undefined
        ? undefined
        : r.body.length > 300
          ? `${r.body.subarray(0, 300).toString('latin1')}…(${r.body.length} bytes)`
          : r.body.toString('latin1'),
  });

interface Figures {
  inputs: number;
  byStatus: Map<number, number>;
  closedWithoutResponse: number;
}

describe('hostile input over raw sockets and fetch', () => {
  let dir: { path: string; remove(): Promise<void> };
  let server: ServerProcess;
  let token: string;
  let rssBefore = 0;
  const created = new Map<number, StoredPlant>();
  const figures: Figures = { inputs: 0, byStatus: new Map(), closedWithoutResponse: 0 };

  beforeAll(async () => {
    dir = await tempDir('hostile');
    const databaseUrl = `sqlite:${dir.path}/plant-store.db`;
    token = await createToken(databaseUrl, 'hostile');
    server = await startServer({ DATABASE_URL: databaseUrl, BODY_LIMIT_BYTES: String(BODY_LIMIT), LOG_LEVEL: 'warn' });
    rssBefore = rssBytes(server.pid);
  });

  afterAll(async () => {
    await server?.stop();
    await dir?.remove();
  });

  /** What a request may lead to besides an error: a create (201), a read (200…), a delete (204 of a plant we made). */
  interface Allowed {
    readonly create?: boolean;
    readonly read?: boolean;
    readonly plant?: { name: string; tag?: string };
  }

  /**
   * The invariants every answer must meet; throws (so fast-check shrinks and reports the input)
   * when one does not.
   */
  const judge = (request: string, method: string, path: string, outcome: RawOutcome, allowed: Allowed): number => {
    figures.inputs++;
    if (!server.alive()) throw new Error(`the server died on ${request}:\n${server.output().slice(-3000)}`);
    if (outcome.kind === 'timeout') throw new Error(`no answer within the bound to ${request}`);
    if (outcome.kind === 'closed') {
      // The contract wants a JSON answer even for what Node's parser rejects (clientError).
      throw new Error(
        `connection closed without a response (${outcome.error ?? 'EOF'}) to ${request}; got ${JSON.stringify(outcome.received.toString('latin1').slice(0, 300))}`,
      );
    }
    const { status, headers, body } = outcome.response;
    figures.byStatus.set(status, (figures.byStatus.get(status) ?? 0) + 1);
    const text = body.toString('utf8');
    if (status >= 500) throw new Error(`${status} ${text} for ${request}`);
    if (headers.get('x-request-id') === undefined) throw new Error(`no X-Request-Id on ${status} for ${request}`);
    if (status >= 400) {
      if (method === 'HEAD') return status; // no body by definition
      const problems = errorBodyProblems(status, headers.get('content-type')?.[0], text);
      if (problems.length > 0)
        throw new Error(`error body of ${status} breaks the contract (${problems.join('; ')}): ${text} for ${request}`);
      return status;
    }
    if (status === 201) {
      if (allowed.create !== true) throw new Error(`201 for a request that must not create: ${request}`);
      const id = /^\/plants\/([1-9][0-9]*)$/.exec(headers.get('location')?.[0] ?? '')?.[1];
      if (id === undefined) throw new Error(`201 without Location for ${request}`);
      const plant = JSON.parse(text) as { name: string; tag?: string };
      if (allowed.plant !== undefined && JSON.stringify(plant) !== JSON.stringify(allowed.plant)) {
        throw new Error(`201 body ${text} differs from the plant sent ${JSON.stringify(allowed.plant)}`);
      }
      created.set(Number(id), { id: Number(id), name: plant.name, tag: plant.tag });
    } else if (status === 204 && method === 'DELETE') {
      // a generated path named one of our plants: it is gone now (and must have been ours)
      let id = NaN;
      try {
        id = Number(decodeURIComponent(path.split('?')[0]?.split('/')[2] ?? ''));
      } catch {
        // not decodable: no plant of ours
      }
      if (!created.delete(id)) throw new Error(`204 for ${request}, which names no plant we created`);
    } else if (status === 200 && method === 'PATCH') {
      // a generated path named one of our plants and the body changed it: it is as answered now
      if (allowed.read !== true) throw new Error(`${status} for a request that must be refused: ${request}`);
      const plant = JSON.parse(text) as StoredPlant;
      if (!created.has(plant.id)) throw new Error(`200 for ${request}, which names no plant we created: ${text}`);
      created.set(plant.id, { id: plant.id, name: plant.name, tag: plant.tag });
    } else if (status >= 200 && status < 300 && allowed.read !== true) {
      throw new Error(`${status} for a request that must be refused: ${request}`);
    }
    return status;
  };

  const exchange = async (r: RawRequest, allowed: Allowed): Promise<number> =>
    judge(describeRequest(r), r.method, r.path, await rawExchange(server.port, toBytes(r), 20_000, r.method), allowed);

  const auth = (): Header => ['Authorization', `Bearer ${token}`];
  const json: Header = ['Content-Type', 'application/json'];
  const post = (body: Buffer, headers: readonly Header[] = [auth(), json]): RawRequest => ({
    method: 'POST',
    path: '/plants',
    headers,
    body,
  });

  // ── bodies ────────────────────────────────────────────────────────────────────────────────────

  /** A JSON text of a number the contract refuses as an id, or one that only looks like one. */
  const hostileNumber = fc.oneof(
    fc.constantFrom(
      '1e400',
      '-1e400',
      '9007199254740992',
      '9007199254740993',
      '18446744073709551616',
      '-0',
      '0',
      '-1',
      '1.5',
      '1e-400',
      '0.1e1',
    ),
    fc.bigInt({ min: 2n ** 53n, max: 2n ** 200n }).map(String),
    fc.nat({ max: 5000 }).map((n) => `1${'0'.repeat(n)}`),
    fc.tuple(fc.nat(), fc.nat()).map(([a, b]) => `${a}.${b}e${b % 400}`),
  );

  const unicodeEdge = fc.constantFrom(
    '\u0000',
    '\u001f',
    '\u007f',
    '\u2028',
    '\u2029',
    '\ufeff',
    '\ufffd',
    '\u200b',
    '\u0301',
    '🌿',
    '\u{10ffff}',
    '\ud800',
    '\udfff',
    '\udbff\udfff',
    ' ',
    '\t',
    'a'.repeat(201),
  );
  const weirdString = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 60 }),
    fc.string({ unit: 'grapheme', maxLength: 60 }),
    fc.array(fc.oneof(unicodeEdge, fc.string({ maxLength: 3 })), { maxLength: 8 }).map((a) => a.join('')),
  );
  const pollutionKey = fc.constantFrom(
    '__proto__',
    'constructor',
    'prototype',
    'toString',
    'hasOwnProperty',
    '__defineGetter__',
    'valueOf',
  );

  /** A JSON text (as a string) of a hostile body; raw bytes come separately. */
  const hostileJsonText = fc.oneof(
    fc.json({ maxDepth: 4 }),
    fc.string({ maxLength: 200 }),
    fc.record({ name: weirdString, tag: fc.option(weirdString, { nil: undefined }) }).map((p) => JSON.stringify(p)),
    fc.tuple(hostileNumber, weirdString).map(([id, name]) => `{"id": ${id}, "name": ${JSON.stringify(name)}}`),
    fc
      .tuple(pollutionKey, fc.jsonValue({ maxDepth: 2 }))
      .map(([k, v]) => `{"name": "polluter", ${JSON.stringify(k)}: ${JSON.stringify(v)}}`),
    pollutionKey.map((k) => `{"${k}": {"polluted": true, "name": "x"}, "name": "p"}`),
    fc.constantFrom(
      `{"constructor": {"prototype": {"admin": true}}, "name": "c"}`,
      `{"name": "dup", "name": "dup2"}`,
      `{"name": "x", "id": 1, "id": "2"}`,
      'null',
      'true',
      '[]',
      '"name"',
      '{}',
      '{"name": null}',
      '{"name": 7}',
      '{"name": ""}',
      '{"name": "   "}',
      '{"name": "ok", "tag": null}',
      '{"name": "ok",}',
      "{'name': 'single'}",
      '{"name": "ok"} trailing',
      '{"name": "ok"}{"name": "again"}',
      '\ufeff{"name": "bom"}',
      '{"name": "\\ud800"}',
      '{"name": "\\udfff\\ud800"}',
      '{"name": "a\\u0000b"}',
      '{"name": "NaN", "id": NaN}',
      '{"name": "inf", "id": Infinity}',
    ),
    fc.nat({ max: 100_000 }).map((n) => '['.repeat(n)),
    fc.nat({ max: 50_000 }).map((n) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`),
    fc.nat({ max: 100_000 }).map((n) => `{"name": ${'['.repeat(n)}${']'.repeat(n)}}`),
  );

  /** Raw byte sequences that are not valid UTF-8, spliced into an otherwise valid plant. */
  const invalidUtf8 = fc.constantFrom(
    [0xff],
    [0xfe, 0xff],
    [0xc0, 0xaf],
    [0xe0, 0x80, 0xaf],
    [0xed, 0xa0, 0x80],
    [0xed, 0xbf, 0xbf],
    [0xf4, 0x90, 0x80, 0x80],
    [0xe2, 0x82],
    [0x80],
    [0xf0, 0x9f, 0x8c],
  );

  it('bodies: malformed JSON, deep nesting, huge numbers, pollution keys, unicode edges, invalid UTF-8', async () => {
    await fc.assert(
      fc.asyncProperty(hostileJsonText, async (text) => {
        await exchange(post(Buffer.from(text, 'utf8')), { create: true });
      }),
      { numRuns: knobs.inputs },
    );
    await fc.assert(
      fc.asyncProperty(invalidUtf8, fc.string({ maxLength: 20 }), async (bytes, around) => {
        const body = Buffer.concat([
          Buffer.from(`{"name": "${around.replace(/["\\]/g, '')}`),
          Buffer.from(bytes),
          Buffer.from('"}'),
        ]);
        const status = await exchange(post(body), {});
        if (status !== 400) throw new Error(`invalid UTF-8 ${JSON.stringify(bytes)} → ${status}, expected 400`);
      }),
      { numRuns: Math.max(20, knobs.inputs / 4) },
    );
    // the pollution attempts reached nothing: a polluted prototype or a stored extra member would
    // show in the JSON the server serialises
    const page = await fetch(`${server.url}/plants?limit=1000`, { headers: { authorization: `Bearer ${token}` } });
    const raw = (await page.json()) as Record<string, unknown>[];
    for (const plant of raw)
      expect(Object.keys(plant).filter((k) => k !== 'id' && k !== 'name' && k !== 'tag')).toEqual([]);
    const probe = (await (
      await fetch(`${server.url}/plants/1`, { headers: { authorization: `Bearer ${token}` } })
    ).json()) as Record<string, unknown>;
    expect(Object.keys(probe).filter((k) => !['id', 'name', 'tag', 'error', 'message'].includes(k))).toEqual([]);
  });

  it('extremes, deterministically: 100k-deep nesting, a 5,000-digit id, bodies past the limit', async () => {
    const cases: [string, Buffer, number][] = [
      ['100k [', Buffer.from('['.repeat(100_000)), 400],
      ['100k {"a":', Buffer.from('{"a":'.repeat(100_000)), 400],
      ['nested name', Buffer.from(`{"name": ${'['.repeat(100_000)}${']'.repeat(100_000)}}`), 400],
      ['5,000-digit id', Buffer.from(`{"id": 1${'0'.repeat(5_000)}, "name": "big"}`), 400],
      ['2^53', Buffer.from('{"id": 9007199254740992, "name": "edge"}'), 400],
      ['2^53 + 1', Buffer.from('{"id": 9007199254740993, "name": "edge"}'), 400],
      ['lone surrogate escaped', Buffer.from('{"name": "\\ud800"}'), 400],
      [
        'lone surrogate as raw bytes',
        Buffer.from([...Buffer.from('{"name": "'), 0xed, 0xa0, 0x80, ...Buffer.from('"}')]),
        400,
      ],
      ['one byte past the limit', Buffer.from(`{"name": "${'x'.repeat(BODY_LIMIT - 11)}"}`), 413],
    ];
    for (const [what, body, expected] of cases) {
      const status = await exchange(post(body), {});
      expect(status, what).toBe(expected);
    }
    // past the limit when chunked (no Content-Length to refuse up front)
    const chunked = await exchange(
      { ...post(Buffer.from(`{"name": "${'y'.repeat(BODY_LIMIT)}"}`)), framing: 'chunked' },
      {},
    );
    expect(chunked).toBe(413);
    expect(rssBytes(server.pid)).toBeLessThan(RSS_BOUND);
  });

  // JSON.parse rounds `123456789.00000000001` to 123456789 and `9007199254740990.9999999` to 2^53−1
  // before the codec sees them; the server checks the id as written (docs/reference/api.md: not an integer → 400).
  it('an id written as a fraction that JSON.parse rounds to an integer gets 400', async () => {
    for (const literal of ['123456789.00000000001', '9007199254740990.9999999']) {
      const status = await exchange(post(Buffer.from(`{"id": ${literal}, "name": "rounded"}`)), { create: true });
      expect(status, `id ${literal}`).toBe(400);
    }
  });

  it('valid plants with unicode names come back exactly as sent', async () => {
    const okChar = fc
      .string({ unit: 'grapheme', minLength: 1, maxLength: 40 })
      .filter((s) => /\S/u.test(s) && ![...s].some((c) => (c.codePointAt(0) as number) < 0x20 || c === '\u007f'));
    await fc.assert(
      fc.asyncProperty(okChar, fc.option(okChar, { nil: undefined }), async (name, tag) => {
        const plant = tag === undefined ? { name } : { name, tag };
        const status = await exchange(post(Buffer.from(JSON.stringify(plant))), { create: true, plant });
        if (status !== 201) throw new Error(`valid plant ${JSON.stringify(plant)} → ${status}`);
      }),
      { numRuns: Math.max(20, knobs.inputs / 4) },
    );
  });

  // ── headers ───────────────────────────────────────────────────────────────────────────────────

  const contentTypes = fc.constantFrom(
    undefined,
    'application/json',
    'APPLICATION/JSON; charset=UTF-8',
    'application/json;charset="utf-8"',
    'application/json; charset=latin1',
    'application/json; charset=utf-16',
    'text/plain',
    'text/json',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    '',
    'application/json, text/plain',
    'application/vnd.api+json',
    'application/merge-patch+json',
    'application/*',
    '*/*',
    'json',
    'application/json; boundary=x',
    'application/json\u0000',
  );
  const encodings = fc.constantFrom(
    undefined,
    'identity',
    'IDENTITY',
    'gzip',
    'GZIP',
    'deflate',
    'br',
    'x-gzip',
    'compress',
    'gzip, identity',
    'identity, gzip',
    'unknown',
    '',
  );
  const compress = (encoding: string | undefined, body: Buffer): Buffer => {
    const first = encoding?.split(',')[0]?.trim().toLowerCase();
    if (first === 'gzip' || first === 'x-gzip') return gzipSync(body);
    if (first === 'deflate') return deflateSync(body);
    if (first === 'br') return brotliCompressSync(body);
    return body;
  };
  const isJsonType = (type: string | undefined): boolean =>
    type !== undefined &&
    /^application\/json[ \t]*(?:;[ \t]*(?:charset[ \t]*=[ \t]*(?:utf-8|"utf-8")[ \t]*)?)*$/i.test(type);

  it('headers: media types, content encodings, duplicates, oversized values, odd bytes', async () => {
    await fc.assert(
      fc.asyncProperty(
        contentTypes,
        encodings,
        fc.constantFrom<'auto' | 'chunked'>('auto', 'chunked'),
        async (type, encoding, framing) => {
          const plain = Buffer.from(JSON.stringify({ name: 'header probe', tag: 'h' }));
          const headers: Header[] = [auth()];
          if (type !== undefined) headers.push(['Content-Type', type]);
          if (encoding !== undefined) headers.push(['Content-Encoding', encoding]);
          const acceptable =
            isJsonType(type) && (encoding === undefined || encoding === '' || encoding.toLowerCase() === 'identity');
          const status = await exchange(
            { method: 'POST', path: '/plants', headers, body: compress(encoding, plain), framing },
            { create: acceptable },
          );
          if (!acceptable && status !== 415 && status !== 400)
            throw new Error(`type ${String(type)} encoding ${String(encoding)} → ${status}, expected 415`);
        },
      ),
      { numRuns: knobs.inputs },
    );

    const duplicates = fc.constantFrom<readonly Header[]>(
      [auth(), auth(), json],
      [auth(), json, json],
      [auth(), json, ['Content-Type', 'text/plain']],
      [auth(), json, ['Content-Length', '5']],
      [auth(), json, ['Transfer-Encoding', 'chunked']],
      [auth(), json, ['Host', 'evil.example']],
      [auth(), json, ['Content-Encoding', 'identity'], ['Content-Encoding', 'gzip']],
      [auth(), json, ['X-Request-Id', 'a'], ['X-Request-Id', 'b']],
      [['Authorization', 'Basic dXNlcjpwYXNz'], auth(), json],
      [['Authorization', `Bearer ${token}, Bearer ${token}`], json],
    );
    const oddValue = fc.oneof(
      fc.nat({ max: 40_000 }).map((n) => 'x'.repeat(n)),
      fc.uint8Array({ minLength: 1, maxLength: 64 }).map((a) => Buffer.from(a)),
      weirdString,
    );
    const oddName = fc
      .oneof(
        fc.constantFrom('X-Odd', 'X-Request-Id', 'Content-Type', 'Authorization', 'Accept', 'Upgrade', 'Range'),
        fc.string({ maxLength: 30 }),
      )
      // `Expect` has its own case below (100-continue would make the raw exchange see an interim 100)
      .filter((name) => name.trim().toLowerCase() !== 'expect');
    await fc.assert(
      fc.asyncProperty(fc.oneof(duplicates, fc.array(fc.tuple(oddName, oddValue), { maxLength: 6 })), async (extra) => {
        const body = Buffer.from('{"name": "dup probe"}');
        await exchange(
          { method: 'POST', path: '/plants', headers: extra.length > 0 ? extra : [auth(), json], body },
          { create: true },
        );
      }),
      { numRuns: knobs.inputs },
    );
    // many headers, and one huge header block (Node's limit is 16 KiB → 431)
    await exchange(
      {
        method: 'GET',
        path: '/plants',
        headers: [auth(), ...Array.from({ length: 3000 }, (_, i): Header => [`X-H${i}`, 'v'])],
      },
      { read: true },
    );
    const huge = await exchange(
      { method: 'GET', path: '/plants', headers: [auth(), ['X-Big', 'b'.repeat(64 * 1024)]] },
      {},
    );
    expect(huge).toBe(431);
  });

  // Node answers an Expect it cannot meet by itself with a bare `417 Expectation Failed` (empty body,
  // no X-Request-Id) unless the server handles 'checkExpectation', as it must for the contract.
  it('an unmet Expect header gets the contract JSON error body', async () => {
    const status = await exchange(
      {
        method: 'POST',
        path: '/plants',
        headers: [auth(), json, ['Expect', 'the-impossible']],
        body: Buffer.from('{"name": "e"}'),
      },
      {},
    );
    expect(status).toBe(417);
  });

  it('a gzip bomb (and its deflate and br siblings) gets 415 without being inflated', async () => {
    const inflated = Buffer.alloc(256 * 1024 * 1024, 0x20); // 256 MiB of spaces, a valid JSON prefix
    const bombs: [string, Buffer][] = [
      ['gzip', gzipSync(inflated, { level: 9 })],
      ['deflate', deflateSync(inflated, { level: 9 })],
      ['br', brotliCompressSync(inflated, { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 5 } })],
    ];
    for (const [encoding, bomb] of bombs) {
      expect(bomb.length).toBeLessThan(BODY_LIMIT); // small as sent: only the encoding check stops it
      const status = await exchange(post(bomb, [auth(), json, ['Content-Encoding', encoding]]), {});
      expect(status, `${encoding} bomb of ${bomb.length} bytes`).toBe(415);
      expect(rssBytes(server.pid)).toBeLessThan(RSS_BOUND);
    }
  });

  // ── paths and query strings ───────────────────────────────────────────────────────────────────

  // CONNECT has its own case below
  const methods = fc.constantFrom(
    'GET',
    'DELETE',
    'POST',
    'PUT',
    'PATCH',
    'OPTIONS',
    'HEAD',
    'TRACE',
    'FOO',
    'get',
    'M-SEARCH',
    'PROPFIND',
  );
  const segment = fc.oneof(
    fc.constantFrom(
      '%00',
      '..',
      '.',
      '%2e%2e',
      '%2F',
      '%252e',
      '',
      '-1',
      '0',
      '01',
      '1',
      '+1',
      '1.0',
      '1e3',
      '9007199254740991',
      '9007199254740992',
      '99999999999999999999999999',
      '%F0%9F%8C%BF',
      '%ED%A0%80',
      '%FF',
      '%',
      '%G0',
      ';x',
      'x?y',
      '1#frag',
      '１',
      '٣',
    ),
    fc.string({ maxLength: 20 }).map(encodeURIComponent),
    fc.nat({ max: 70_000 }).map((n) => '9'.repeat(n)),
  );
  const path = fc.oneof(
    fc.array(segment, { minLength: 1, maxLength: 4 }).map((s) => `/plants/${s.join('/')}`),
    fc.constantFrom(
      '/plants/../',
      '/plants/../../etc/passwd',
      '//plants',
      '/plants//1',
      '/PLANTS',
      '/plants/',
      '/',
      '*',
      '/openapi.json/..',
      '/healthz/../plants',
      'http://evil.example/plants',
      '/plants/1/',
    ),
  );
  const queryValue = fc.oneof(
    fc.constantFrom(
      '',
      '1',
      '0',
      '-1',
      '1000',
      '1001',
      '1e3',
      '1.5',
      '%00',
      'abc',
      '9007199254740992',
      '[]',
      '__proto__',
    ),
    fc.string({ maxLength: 10 }).map(encodeURIComponent),
  );
  const queryKey = fc.oneof(
    fc.constantFrom(
      'limit',
      'after',
      'limit[]',
      'after[x]',
      '__proto__',
      'constructor',
      'access_token',
      '__proto__[limit]',
      '',
    ),
    fc.string({ maxLength: 8 }).map(encodeURIComponent),
  );
  const query = fc
    .array(fc.tuple(queryKey, queryValue), { maxLength: 6 })
    .map((pairs) => pairs.map(([k, v]) => `${k}=${v}`).join('&'));

  it('paths: NUL, dot segments, encodings, very long ids, odd methods', async () => {
    await fc.assert(
      fc.asyncProperty(methods, path, async (method, target) => {
        const hasBody = method === 'POST' || method === 'PUT' || method === 'PATCH';
        await exchange(
          {
            method,
            path: target,
            headers: [auth(), json],
            ...(hasBody ? { body: Buffer.from('{"name": "path probe"}') } : {}),
          },
          { create: true, read: true },
        );
      }),
      { numRuns: knobs.inputs },
    );
  });

  // Without a 'connect' listener Node drops a CONNECT request's connection unanswered; the server
  // must answer it like any method a route lacks (405 with Allow here) with the contract's body.
  it('a CONNECT request gets a JSON error answer', async () => {
    const status = await exchange({ method: 'CONNECT', path: '/plants', headers: [auth()] }, {});
    expect(status).toBe(405);
  });

  it('query strings: duplicated, bracketed, polluting and out-of-range parameters', async () => {
    await fc.assert(
      fc.asyncProperty(query, fc.constantFrom('/plants', '/plants/1', '/healthz', '/openapi.json'), async (q, base) => {
        const status = await exchange({ method: 'GET', path: `${base}?${q}`, headers: [auth()] }, { read: true });
        if (base === '/plants' && /(^|&)(limit|after)=[^&]*&(.*&)?\2=/.test(q) && status === 200) {
          throw new Error(`duplicated ${q} accepted with 200`);
        }
      }),
      { numRuns: knobs.inputs },
    );
  });

  it('fetch: the same through a normal HTTP client (it normalises paths; the server must still agree)', async () => {
    await fc.assert(
      fc.asyncProperty(path, query, async (target, q) => {
        if (!target.startsWith('/')) return;
        let response: Response;
        try {
          response = await fetch(`${server.url}${target}?${q}`, { headers: { authorization: `Bearer ${token}` } });
        } catch (err) {
          throw new Error(`fetch ${target}?${q} failed: ${String(err)}`);
        }
        const text = await response.text();
        const headers = new Map<string, string[]>([...response.headers].map(([k, v]) => [k, [v]]));
        judge(
          `fetch GET ${target}?${q}`,
          'GET',
          target,
          { kind: 'response', response: { status: response.status, statusLine: '', headers, body: Buffer.from(text) } },
          { read: true },
        );
      }),
      { numRuns: knobs.inputs },
    );
  });

  it('afterwards: still alive, RSS bounded, and the store holds exactly the plants of the 201 responses', async () => {
    expect(server.alive()).toBe(true);
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(200);
    const rssAfter = rssBytes(server.pid);
    expect(rssAfter).toBeLessThan(RSS_BOUND);
    const stored = await listAll(server.url, token);
    expect(stored).toEqual(created);
    const statuses = [...figures.byStatus]
      .sort(([a], [b]) => a - b)
      .map(([s, n]) => `${s}×${n}`)
      .join(' ');
    console.log(
      `hostile-input: ${figures.inputs} inputs tried, 0 answered 5xx, ${created.size} plants created and all found, ` +
        `RSS ${(rssBefore / 2 ** 20).toFixed(0)} → ${(rssAfter / 2 ** 20).toFixed(0)} MB; statuses ${statuses}`,
    );
  });
});
