/**
 * The served document, exact under generated testing. Driven by `GET /openapi.json` of a listening
 * server (SQLite here, PostgreSQL in the `postgres` project), for every operation the document
 * lists:
 *
 * - requests that conform to the document never get a 400/413/415, a 422 the operation does not
 *   document, or a 5xx;
 * - requests that break one rule of the document (a wrong type, a bound crossed, a member added,
 *   a required one left out, a pattern broken, the id's spelling, no or a weaker credential, an
 *   undocumented media type) get the 4xx the document gives for it;
 * - every answer validates against the document: a documented status, the required headers,
 *   each header and body against its schema (Ajv, JSON Schema 2020-12);
 * - every successful write (a 2xx to POST, PUT, PATCH or DELETE) says where it is in the change
 *   log (`X-Change-Seq`), and every operation was driven by conforming requests;
 * - every method the document leaves out of a path is answered 405 with the documented `Allow`.
 *
 * CI runs a fixed seed. Longer: `PLANT_STORE_CONFORMANCE_RUNS=20000 PLANT_STORE_CONFORMANCE_SEED=random
 * pnpm --filter @plant-store/server exec vitest run test/conformance`; a failure prints its seed
 * and path (fast-check's report), which `PLANT_STORE_CONFORMANCE_SEED=<seed>` replays.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlant, request, startTestServer, testStoreKind, type Reply, type TestServer } from '../http/support.js';
import { brokenBody, brokenValues, valid } from './arbitraries.js';
import { readDocument, type Document, type Operation, type Parameter, type Schema } from './document.js';
import { responseProblems } from './responses.js';
import { seedFrom } from '../support/seed.js';

const runs = Number(process.env['PLANT_STORE_CONFORMANCE_RUNS'] ?? 1000);
/** Generous: under the whole suite's load on 2 cores a run of 1,000 requests took up to a minute. */
const timeout = Math.max(180_000, runs * 150);
const seed = seedFrom('PLANT_STORE_CONFORMANCE_SEED', 17);
if (!Number.isInteger(seed) || !Number.isInteger(runs) || runs < 1) {
  throw new TypeError(
    'PLANT_STORE_CONFORMANCE_SEED must be an integer or "random", PLANT_STORE_CONFORMANCE_RUNS an integer ≥ 1',
  );
}

/** One generated request, and what the document says its answer must be. */
interface Call {
  readonly op: Operation;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  /** undefined: the request conforms; else the status the document gives for the rule it breaks. */
  readonly expected?: { readonly status: number; readonly rule: string };
}

let server: TestServer;
let doc: Document;
const tried = { conforming: 0, broken: 0, statuses: new Map<number, number>(), byOperation: new Map<string, number>() };
const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

beforeAll(async () => {
  server = await startTestServer();
  const served = await fetch(`${server.url}/openapi.json`);
  doc = readDocument((await served.json()) as Schema);
  // Plants with small ids, so that generated ids (biased low) often name one that exists.
  for (let id = 1; id <= 30; id++)
    await createPlant(server, { id, name: `plant ${id}`, ...(id % 3 === 0 ? { tag: 'fern' } : {}) });
});

afterAll(async () => {
  const statuses = [...tried.statuses]
    .sort(([a], [b]) => a - b)
    .map(([status, n]) => `${status}×${n}`)
    .join(' ');
  console.log(
    `conformance (${testStoreKind}): ${tried.conforming} conforming + ${tried.broken} rule-breaking requests, seed ${seed}; answers ${statuses}`,
  );
  await server?.close();
});

const encode = (value: unknown): string => encodeURIComponent(String(value));

/** The path with its parameters filled in, and the query string. */
const target = (op: Operation, values: ReadonlyMap<Parameter, string | undefined>): string => {
  let path = op.path;
  const query: string[] = [];
  for (const [parameter, value] of values) {
    if (value === undefined) continue;
    if (parameter.in === 'path') path = path.replace(`{${parameter.name}}`, value);
    if (parameter.in === 'query') query.push(`${encodeURIComponent(parameter.name)}=${value}`);
  }
  return query.length === 0 ? path : `${path}?${query.join('&')}`;
};

const authHeaders = (op: Operation, token: string | undefined = server.tokens.all): Record<string, string> =>
  op.scopes === undefined || token === undefined ? {} : { authorization: `Bearer ${token}` };

/** A header value Node sends: printable ASCII and tabs (a server trims the spaces around it). */
const sendable = (value: unknown): boolean => /^[\t -~]*$/.test(String(value));

const isPageCursor = (parameter: Parameter): boolean => parameter.in === 'query' && parameter.name === 'cursor';

/**
 * What the document says in prose about the parameters of GET /plants together, and a schema per
 * parameter cannot: `after` goes with an id order only, and a `cursor` is valid only as a
 * previous page's Link gives it (it is opaque), so a conforming request sends none.
 */
const consistent = (values: Map<Parameter, string | undefined>): Map<Parameter, string | undefined> => {
  const byName = (name: string) => [...values.keys()].find((p) => p.in === 'query' && p.name === name);
  const [sort, after] = [byName('sort'), byName('after')];
  const sorted = sort === undefined ? undefined : values.get(sort);
  if (after !== undefined && (sorted === 'name' || sorted === '-name')) values.set(after, undefined);
  // GET /plants/changes: a number above the newest change's is refused (the prose says so), and
  // `wait` holds the answer for seconds: a conforming request names a change that exists (the 30
  // creates of beforeAll made 30) and does not wait.
  for (const parameter of values.keys()) {
    const value = values.get(parameter);
    if (value === undefined || !(parameter.name === 'since' || parameter.name === 'Last-Event-ID')) continue;
    values.set(parameter, String(Number(value) % 31));
  }
  const wait = byName('wait');
  if (wait !== undefined) values.set(wait, undefined);
  return values;
};

/** Values for every parameter the document admits (optional ones sometimes left out). */
const conformingParameters = (op: Operation): fc.Arbitrary<Map<Parameter, string | undefined>> =>
  fc
    .tuple(
      ...op.parameters.map((parameter) => {
        if (isPageCursor(parameter)) return fc.constant(undefined);
        const values = valid(doc, parameter.schema).filter((v) => parameter.in !== 'header' || sendable(v));
        return parameter.required ? values : fc.option(values, { nil: undefined });
      }),
    )
    .map((values) =>
      consistent(
        new Map(
          op.parameters.map((parameter, i) => [
            parameter,
            values[i] === undefined ? undefined : parameter.in === 'header' ? String(values[i]) : encode(values[i]),
          ]),
        ),
      ),
    );

const headerParameters = (values: ReadonlyMap<Parameter, string | undefined>): Record<string, string> =>
  Object.fromEntries(
    [...values]
      .filter(([p, v]) => p.in === 'header' && v !== undefined)
      .map(([p, v]) => [p.name.toLowerCase(), v as string]),
  );

/** How fast-check shows a call in a failure report: the request, not the whole operation. */
const printable = (call: Call): Call =>
  Object.defineProperty(call, fc.toStringMethod, {
    value: () =>
      `${call.op.method} ${call.path} ${JSON.stringify(call.headers)}${call.body === undefined ? '' : ` ${call.body}`}${call.expected === undefined ? '' : ` (breaks ${call.expected.rule})`}`,
  });

const conformingCall = (op: Operation): fc.Arbitrary<Call> => {
  const media = Object.keys(op.body?.content ?? {});
  const body =
    op.body === undefined
      ? fc.constant(undefined)
      : fc
          .constantFrom(...media)
          .chain((type) =>
            valid(doc, op.body?.content[type] as Schema).map((value) => ({ type, text: JSON.stringify(value) })),
          );
  return fc.tuple(conformingParameters(op), body).map(([values, sent]) => ({
    op,
    path: target(op, values),
    headers: {
      ...authHeaders(op),
      ...headerParameters(values),
      ...(sent === undefined ? {} : { 'content-type': sent.type }),
    },
    ...(sent === undefined ? {} : { body: sent.text }),
  }));
};

/**
 * A path or query value that breaks the parameter's schema or, for an integer, the spelling the
 * document describes (decimal digits, no sign, no leading zero). Never empty or with a `/` in a
 * path: that would name another route, not break this one's parameter.
 */
const brokenParameterValues = (parameter: Parameter): Array<{ rule: string; value: string }> => {
  const schema = doc.resolveSchema(parameter.schema);
  if (schema['type'] === 'integer') {
    const breaks = brokenValues(doc, schema)
      .filter(({ value }) => typeof value === 'number')
      .map(({ rule, value }) => ({ rule, value: String(value) }));
    const spelling = ['07', '+7', '7.0', '1e3', 'abc', '%207', '0x1f', '١'].map((value) => ({
      rule: 'decimal digits, no sign, no leading zero',
      value: value === '١' ? encodeURIComponent(value) : value,
    }));
    return [
      ...breaks,
      ...spelling,
      ...(parameter.in === 'query' ? [{ rule: 'an integer, sent empty', value: '' }] : []),
    ];
  }
  if (parameter.in === 'query') {
    // A string of the query breaks the schema as text: values of other JSON types would arrive
    // as text too, and may be admitted (`q=7`). Kept short enough that the request line stays
    // within Node's header limit (past it the answer is a 431, whatever the value).
    return brokenValues(doc, schema)
      .filter((b): b is { rule: string; value: string } => typeof b.value === 'string')
      .map(({ rule, value }) => ({ rule, value: encode(value) }))
      .filter(({ value }) => value.length <= 8000);
  }
  if (parameter.in !== 'header') return [];
  // A header value travels as printable ASCII; surrounding spaces would be trimmed away.
  return brokenValues(doc, schema).filter(
    (b): b is { rule: string; value: string } =>
      typeof b.value === 'string' && /^([!-~]([ -~]*[!-~])?)?$/.test(b.value),
  );
};

/** Requests that break exactly one rule, each with the status the document gives for it. */
const brokenCall = (op: Operation): fc.Arbitrary<Call> | undefined => {
  const kinds: Array<fc.Arbitrary<Call>> = [];
  const base = conformingCall(op);
  const documented = (status: number): boolean => String(status) in op.responses;
  for (const parameter of op.parameters) {
    const breaks = brokenParameterValues(parameter);
    if (breaks.length === 0 || !documented(400)) continue;
    kinds.push(
      fc.tuple(conformingParameters(op), fc.constantFrom(...breaks), base).map(([values, broken, call]) => {
        const changed = new Map(values).set(parameter, broken.value);
        return {
          ...call,
          path: target(op, changed),
          headers: { ...call.headers, ...headerParameters(changed) },
          expected: { status: 400, rule: `${parameter.in} ${parameter.name}: ${broken.rule}` },
        };
      }),
    );
  }
  const media = Object.keys(op.body?.content ?? {});
  const [type] = media;
  if (op.body !== undefined && type !== undefined) {
    const schema = op.body.content[type] as Schema;
    if (documented(400)) {
      kinds.push(
        fc.tuple(base, brokenBody(doc, schema)).map(([call, broken]) => ({
          ...call,
          headers: { ...call.headers, 'content-type': type },
          body: JSON.stringify(broken.value),
          expected: { status: 400, rule: `body ${broken.rule}` },
        })),
      );
    }
    if (documented(415)) {
      kinds.push(
        fc
          .tuple(base, fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'application/jsonx'))
          .map(([call, other]) => ({
            ...call,
            headers: { ...call.headers, 'content-type': other },
            expected: { status: 415, rule: `media type ${media.join(' or ')}, sent ${other}` },
          })),
      );
    }
  }
  if (op.scopes !== undefined && documented(401)) {
    kinds.push(
      base.map((call) => ({
        ...call,
        headers: withoutAuthorization(call.headers),
        expected: { status: 401, rule: 'bearer credentials required' },
      })),
    );
  }
  if (op.scopes !== undefined && op.scopes.length > 0 && documented(403)) {
    const weaker = op.scopes.includes('plants:write') ? server.tokens.read : server.tokens.write;
    kinds.push(
      base.map((call) => ({
        ...call,
        headers: { ...call.headers, authorization: `Bearer ${weaker}` },
        expected: { status: 403, rule: `scope ${op.scopes?.join(' ')}` },
      })),
    );
  }
  return kinds.length === 0 ? undefined : fc.oneof(...kinds);
};

const withoutAuthorization = (headers: Readonly<Record<string, string>>): Record<string, string> => {
  const { authorization: _dropped, ...rest } = headers;
  return rest;
};

const send = async (call: Call): Promise<Reply> => {
  const reply = await request(server, call.path, {
    method: call.op.method,
    headers: call.headers,
    ...(call.body === undefined ? {} : { body: call.body }),
  });
  tried.statuses.set(reply.status, (tried.statuses.get(reply.status) ?? 0) + 1);
  return reply;
};

const shown = (call: Call, reply: Reply): string =>
  `${call.op.method} ${call.path}${call.body === undefined ? '' : ` ${call.body.slice(0, 300)}`} → ${reply.status} ${reply.text.slice(0, 300)}`;

describe('the served OpenAPI document', () => {
  it('lists operations for the suite to drive', () => {
    expect(doc.operations.length).toBeGreaterThan(5);
  });

  it(
    'explains every answer to a request that conforms to it, and none is a 5xx',
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.oneof(...doc.operations.map(conformingCall)).map(printable), async (call) => {
          tried.conforming++;
          const reply = await send(call);
          tried.byOperation.set(call.op.id, (tried.byOperation.get(call.op.id) ?? 0) + 1);
          const problems = responseProblems(doc, call.op, reply);
          expect(problems, shown(call, reply)).toEqual([]);
          if (WRITES.has(call.op.method) && reply.status >= 200 && reply.status < 300)
            expect(reply.headers['x-change-seq'], `a write without X-Change-Seq: ${shown(call, reply)}`).toMatch(
              /^(0|[1-9][0-9]*)$/,
            );
          expect([400, 413, 415], `a conforming request was refused: ${shown(call, reply)}`).not.toContain(
            reply.status,
          );
          expect(reply.status, shown(call, reply)).toBeLessThan(500);
        }),
        { numRuns: runs, seed, endOnFailure: true },
      );
      const undriven = doc.operations.filter((op) => !tried.byOperation.has(op.id)).map((op) => op.id);
      if (runs >= 200) expect(undriven, 'operations no conforming request reached').toEqual([]);
    },
    timeout,
  );

  it(
    'answers a request that breaks one rule with the 4xx the document gives for it',
    async () => {
      const calls = doc.operations.map(brokenCall).filter((call): call is fc.Arbitrary<Call> => call !== undefined);
      expect(calls.length).toBeGreaterThan(3);
      await fc.assert(
        fc.asyncProperty(fc.oneof(...calls).map(printable), async (call) => {
          tried.broken++;
          const reply = await send(call);
          expect(reply.status, `${call.expected?.rule}: ${shown(call, reply)}`).toBe(call.expected?.status);
          expect(responseProblems(doc, call.op, reply), shown(call, reply)).toEqual([]);
        }),
        { numRuns: runs, seed, endOnFailure: true },
      );
    },
    timeout,
  );

  it('describes a page of one tag, plant.left included, and its moving Link', async () => {
    // Generated requests seldom meet a change that takes a plant out of a tag: one made here.
    const op = doc.operations.find((o) => o.id === 'listChanges');
    expect(op).toBeDefined();
    const headers = { authorization: `Bearer ${server.tokens.all}` };
    const before = Number((await request(server, '/plants?limit=1', { headers })).headers['x-change-seq']);
    const created = await createPlant(server, { name: 'leaving', tag: 'fern' });
    expect(created.status, created.text).toBe(201);
    const moved = await request(server, String(created.headers.location), {
      method: 'PATCH',
      headers: { ...headers, 'content-type': 'application/merge-patch+json' },
      body: JSON.stringify({ tag: 'moss' }),
    });
    expect(moved.status, moved.text).toBe(200);
    await createPlant(server, { name: 'elsewhere', tag: 'moss' });
    const page = await request(server, `/plants/changes?since=${before}&tag=fern`, { headers });
    expect((page.json as { type: string }[]).map((change) => change.type)).toEqual(['plant.created', 'plant.left']);
    expect(responseProblems(doc, op as Operation, page), shown({ op } as Call, page)).toEqual([]);
    expect(page.headers['link']).toBe(`</plants/changes?since=${before + 3}&tag=fern&limit=100>; rel="next"`);
  });

  it('answers every method it does not document on a documented path with 405 and the documented Allow', async () => {
    const methods = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE'];
    let checked = 0;
    for (const [template, documented] of doc.methodsByPath) {
      const path = template.replace(/\{[^}]+\}/g, '1');
      for (const method of methods.filter((m) => !documented.includes(m))) {
        const reply = await request(server, path, {
          method,
          headers: { authorization: `Bearer ${server.tokens.all}` },
        });
        expect(reply.status, `${method} ${path}`).toBe(405);
        expect(new Set(String(reply.headers.allow).split(', ')), `${method} ${path}`).toEqual(new Set(documented));
        // A HEAD answer has no body (a path without GET, such as /plants/batch, answers HEAD 405).
        if (method === 'HEAD') expect(reply.text, `${method} ${path}`).toBe('');
        else
          expect(reply.json, `${method} ${path}`).toEqual({
            error: 405,
            message: `method ${method} is not allowed on ${template}; allowed: ${String(reply.headers.allow)}`,
          });
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(10);
  });
});
