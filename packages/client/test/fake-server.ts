// A small node:http server that answers like the real Plant Store would (docs/reference/api.md): bearer
// auth, the six plant routes (PATCH and PUT included) and POST /plants/batch, `{error, message}` bodies, Location, Link (with
// the tag and q filters, the sort, and an opaque cursor for name orders), Prefer: count=exact,
// X-Request-Id, Idempotency-Key on creates (replays, 422 for a reused key), and ETags with
// If-Match / If-None-Match (304, 412), and the change feed: a change log written by the routes,
// `X-Change-Seq` on reads and writes, and `GET /plants/changes` as JSON pages or a stream that tests can end,
// cut or write to. Tests can queue one-shot handlers to script failures (500s, 429s, garbage,
// hangs, dropped sockets, a key still in progress, a 410 or a 503 of the feed).
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as E from 'fp-ts/lib/Either.js';
import {
  createPlantStoreClient,
  PlantStoreError,
  type PlantStoreClient,
  type PlantStoreClientOptions,
  type RetryInfo,
} from '../src/index.js';
import {
  changeBody,
  ChangePositionFromString,
  compareCodePoints,
  CreatePlantRequest,
  CreatePlantsRequest,
  describeValue,
  fold,
  isNameSort,
  formatErrors,
  hasPreference,
  ListQuery,
  parseIdempotencyKeyField,
  PlantIdFromPath,
  ReplacePlantRequest,
  UpdatePlantRequest,
  type Change,
  type Plant,
  type PlantId,
  type PlantSort,
} from '@plant-store/domain';

export const TOKEN = 'test-token.write';
export const READ_ONLY_TOKEN = 'test-token.read';
const MAX_BODY = 16 * 1024;
/** The fake's BULK_BODY_LIMIT_BYTES (change it for a test): the real default, 4 MiB. */
export const bulkLimit = { bytes: 4 * 1024 * 1024 };

export interface RecordedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

/** The normal routes. */
export type Route = (req: IncomingMessage, res: ServerResponse, body: string) => void;

/**
 * Answers one request instead of the normal routes. `body` is the request body, read already;
 * `route` runs the normal routes (for handlers that let the request through but spoil the answer).
 */
export type ScriptedHandler = (req: IncomingMessage, res: ServerResponse, body: string, route: Route) => void;

/** A create's saved answer, replayed for a repeat of its `Idempotency-Key`. */
export interface SavedAnswer {
  /** The request body the key was first used with. */
  readonly body: string;
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly answer: unknown;
}

export interface FakeServer {
  /** The base URL, e.g. `http://127.0.0.1:41234` (plus the prefix, if any). */
  readonly url: string;
  /** The store; change it directly to stage a state (ETags follow the content). */
  readonly plants: Map<number, Plant>;
  /** The ETag the server gives the plant with this id as it is now (undefined: no such plant). */
  etagOf(id: number): string | undefined;
  readonly requests: RecordedRequest[];
  /** The saved answers of creates, by `Idempotency-Key`. */
  readonly idempotencyKeys: Map<string, SavedAnswer>;
  /** Queues handlers that answer the next requests, one each, before the normal routes. */
  enqueue(...handlers: ScriptedHandler[]): void;
  /**
   * The change log, oldest first: the routes record every create, patch that changed a plant and
   * delete (a replayed create or an unchanged patch records nothing; neither does staging through
   * `plants`). Tests may also push changes of their own.
   */
  readonly changes: Change[];
  /**
   * The tag each change of `changes` took its plant away from, by number (a patch that changed
   * the tag, a delete of a plant with a tag): what a feed of one tag shows as `plant.left` (or the
   * delete). Tests that push changes of their own may set it too.
   */
  readonly leftTags: Map<number, string>;
  /** How the change feed behaves; change it at any time. */
  readonly feed: FakeFeedSettings;
  /** How many change streams are open now. */
  openStreams(): number;
  /** Ends every open stream cleanly (the chunked answer finished), as the real server does at shutdown. */
  endStreams(): void;
  /** Destroys the connection of every open stream, as the real server cuts a client that does not read. */
  cutStreams(): void;
  /** Writes `text` as it is to every open stream: a heartbeat, a malformed event. */
  writeToStreams(text: string): void;
  /** Sends each open stream of one tag a bookmark of the newest number, as the server does after quiet. */
  bookmarkStreams(): void;
  close(): Promise<void>;
}

export interface FakeFeedSettings {
  /** The `retry:` every stream starts with, in ms. Default 10, so that tests reconnect at once. */
  retryMs: number;
  /** A `since` (or `Last-Event-ID`) below this is answered 410: the changes after it have expired. Default 0. */
  expiredBefore: number;
}

export const sendJson = (
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void => {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  res.end(text);
};

export const sendError = (
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void => sendJson(res, status, { error: status, message }, headers);

/** A scripted handler answering `status` with the contract's error body. */
export const reply =
  (status: number, message = `scripted ${status}`, headers: Record<string, string> = {}): ScriptedHandler =>
  (_req, res) =>
    sendError(res, status, message, headers);

/** A scripted handler answering a raw body with the given content type. */
export const raw =
  (
    status: number,
    body: string | Buffer,
    headers: Record<string, string> = { 'content-type': 'application/json' },
  ): ScriptedHandler =>
  (_req, res) => {
    res.writeHead(status, headers);
    res.end(body);
  };

/** A scripted handler that never answers (for timeouts and aborts). */
export const hang: ScriptedHandler = () => {};

/** A scripted handler that drops the connection without a response. */
export const drop: ScriptedHandler = (req) => {
  req.socket.destroy();
};

/** A scripted handler that handles the request as usual (a create is stored) but loses the answer: the connection drops. */
export const answerLost: ScriptedHandler = (req, _res, body, route) => {
  const discard = { setHeader: () => discard, writeHead: () => discard, end: () => discard };
  route(req, discard as unknown as ServerResponse, body);
  req.socket.destroy();
};

/** A scripted 409 saying a request with the request's `Idempotency-Key` is still in progress. */
export const inProgress =
  (retryAfter = '0'): ScriptedHandler =>
  (req, res) =>
    sendError(
      res,
      409,
      `a request with Idempotency-Key ${JSON.stringify(req.headers['idempotency-key'])} is still in progress`,
      {
        'retry-after': retryAfter,
      },
    );

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const LIST_ITEM = /[ \t]*((?:W\/)?"[\x21\x23-\x7E\x80-\xFF]*")[ \t]*(,|$)/y;

/** An `If-Match` / `If-None-Match` field: `*`, or the list of entity-tags (commas may sit inside one); undefined when malformed. */
const parseCondition = (field: string): '*' | string[] | undefined => {
  if (field.trim() === '*') return '*';
  const tags: string[] = [];
  LIST_ITEM.lastIndex = 0;
  while (LIST_ITEM.lastIndex < field.length) {
    const match = LIST_ITEM.exec(field);
    if (match === null) return undefined;
    tags.push(match[1] as string);
    if (match[2] === '') break;
  }
  return tags.length > 0 && LIST_ITEM.lastIndex === field.length ? tags : undefined;
};
const opaque = (tag: string): string => tag.replace(/^W\//, '');

/** The query string as ListQuery reads it: a repeated parameter arrives as an array. */
const queryRecord = (params: URLSearchParams): Record<string, string | string[]> => {
  const record: Record<string, string | string[]> = {};
  for (const key of new Set(params.keys())) {
    const values = params.getAll(key);
    record[key] = values.length === 1 ? (values[0] as string) : values;
  }
  return record;
};

/** Where a name-ordered page ended, and what for: what the fake's opaque cursors hold. */
interface PageCursorState {
  readonly sort: PlantSort;
  readonly q: string | null;
  readonly tag: string | null;
  readonly name: string;
  readonly id: number;
}
const writeCursor = (state: PageCursorState): string => Buffer.from(JSON.stringify(state)).toString('base64url');
const readCursor = (cursor: string): PageCursorState | undefined => {
  try {
    return JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as PageCursorState;
  } catch {
    return undefined;
  }
};

/** A short hash of a string (FNV-1a), to make ETags that change exactly when the content does. */
const fnv1a = (text: string): string => {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(text, 'utf8')) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
  return hash.toString(36);
};
const challenge = (error?: string) => `Bearer realm="plant-store"${error === undefined ? '' : `, error="${error}"`}`;

export const startFakeServer = async (options: { readonly prefix?: string } = {}): Promise<FakeServer> => {
  const prefix = options.prefix ?? '';
  const plants = new Map<number, Plant>();
  const requests: RecordedRequest[] = [];
  const idempotencyKeys = new Map<string, SavedAnswer>();
  const queue: ScriptedHandler[] = [];
  // Bumped when a plant is deleted, so a re-created plant never gets an ETag it had before.
  const generations = new Map<number, number>();
  const etagOf = (id: number): string | undefined => {
    const plant = plants.get(id);
    if (plant === undefined) return undefined;
    // [0-9a-z]{1,11}, as the real server's: the content's hash (7 digits) and the generation.
    const hash = fnv1a(JSON.stringify([plant.name, plant.tag ?? null])).padStart(7, '0');
    return `"${hash}${(generations.get(id) ?? 0).toString(36)}"`;
  };

  const changes: Change[] = [];
  const leftTags = new Map<number, string>();
  const feed: FakeFeedSettings = { retryMs: 10, expiredBefore: 0 };
  const streams = new Set<{ readonly res: ServerResponse; position: number; readonly tag: string | null }>();
  const newest = (): number => changes.at(-1)?.seq ?? 0;
  const eventOf = (change: Change): string =>
    `id: ${change.seq}\nevent: ${change.type}\ndata: ${changeBody(change)}\n\n`;
  /** The change as a feed of `tag` shows it (all: as it is), or undefined when it does not. */
  const shownIn = (change: Change, tag: string | null): Change | undefined => {
    if (tag === null) return change;
    if (change.type !== 'plant.deleted' && change.type !== 'plant.left' && change.data.tag === tag) return change;
    if (leftTags.get(change.seq) !== tag) return undefined;
    if (change.type === 'plant.deleted') return change;
    return { seq: change.seq, type: 'plant.left', timestamp: change.timestamp, data: { id: change.data.id } } as Change;
  };
  /** Appends a change of plant `id` as it is now (gone: a delete) and sends it to the open streams. */
  const recordChange = (type: Change['type'], id: PlantId, tagBefore?: string): void => {
    const seq = newest() + 1;
    const timestamp = new Date().toISOString();
    const plant = plants.get(id);
    const change = (
      type === 'plant.deleted' || plant === undefined
        ? { seq, type: 'plant.deleted', timestamp, data: { id } }
        : { seq, type, timestamp, data: plant, etag: etagOf(id) }
    ) as Change;
    changes.push(change);
    if (tagBefore !== undefined && (plant === undefined || plant.tag !== tagBefore)) leftTags.set(seq, tagBefore);
    for (const stream of streams) {
      if (change.seq <= stream.position) continue;
      const shown = shownIn(change, stream.tag);
      if (shown === undefined) continue;
      stream.position = change.seq;
      stream.res.write(eventOf(shown));
    }
  };

  /** GET /plants/changes, after authentication: a JSON page or a stream. */
  const changeFeed = (req: IncomingMessage, res: ServerResponse, url: URL): void => {
    const lastEventId = req.headers['last-event-id'];
    const given = typeof lastEventId === 'string' ? lastEventId : (url.searchParams.get('since') ?? undefined);
    const name = typeof lastEventId === 'string' ? 'Last-Event-ID' : 'since';
    let since: number | undefined;
    if (given !== undefined) {
      const decoded = ChangePositionFromString.decode(given);
      if (E.isLeft(decoded)) return sendError(res, 400, `${name}: expected a change number, got ${given}`);
      since = decoded.right;
      if (since > newest())
        return sendError(res, 400, `${name}: ${since} is above the newest change number, ${newest()}`);
      if (since < feed.expiredBefore) {
        return sendError(
          res,
          410,
          `the changes after ${since} have expired (CHANGES_RETENTION): read the plants again`,
        );
      }
    }
    const position = since ?? newest();
    const tag = url.searchParams.get('tag');
    const shown = (from: number): Change[] =>
      changes
        .filter((change) => change.seq > from)
        .map((change) => shownIn(change, tag))
        .filter((change): change is Change => change !== undefined);
    const accept = req.headers.accept ?? '*/*';
    if (accept === 'text/event-stream') {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
      const stream = { res, position, tag };
      streams.add(stream);
      res.on('close', () => streams.delete(stream));
      const waiting = shown(position);
      stream.position = waiting.at(-1)?.seq ?? position;
      res.write(`retry: ${feed.retryMs}\n\n${waiting.map(eventOf).join('')}`);
      return;
    }
    const limit = Number(url.searchParams.get('limit') ?? 100);
    const page = shown(position).slice(0, limit);
    // Like the server: a page of one tag that is not full moves to the newest number.
    const next = tag !== null && page.length < limit ? newest() : (page.at(-1)?.seq ?? position);
    const tagParam = tag === null ? '' : `&${new URLSearchParams({ tag }).toString()}`;
    res.writeHead(200, {
      'content-type': 'application/json; charset=utf-8',
      link: `<${prefix}/plants/changes?since=${next}${tagParam}&limit=${limit}>; rel="next"`,
    });
    res.end(`[${page.map(changeBody).join(',')}]`);
  };

  // Like the real server: a repeat of a key with the same body gets the saved answer, marked
  // replayed; with another body a 422. Only 201 and the id-taken 409 are saved.
  const create = (res: ServerResponse, body: string, key: string | undefined): void => {
    const saved = key === undefined ? undefined : idempotencyKeys.get(key);
    if (saved !== undefined) {
      if (saved.body !== body) {
        return sendError(res, 422, `Idempotency-Key ${JSON.stringify(key)} was already used with a different request`);
      }
      return sendJson(res, saved.status, saved.answer, { ...saved.headers, 'idempotent-replayed': 'true' });
    }
    const answer = (status: number, json: unknown, headers: Record<string, string> = {}): void => {
      if (key !== undefined) idempotencyKeys.set(key, { body, status, headers, answer: json });
      sendJson(res, status, json, headers);
    };
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      return sendError(res, 400, 'the body is not valid JSON');
    }
    const decoded = CreatePlantRequest.decode(json);
    if (E.isLeft(decoded)) return sendError(res, 400, formatErrors(decoded.left).join('; '));
    const input = decoded.right;
    if (input.id !== undefined && plants.has(input.id)) {
      return answer(409, { error: 409, message: `a plant with id ${input.id} already exists` });
    }
    const id = (input.id ?? Math.max(0, ...plants.keys()) + 1) as PlantId;
    const plant: Plant = input.tag === undefined ? { id, name: input.name } : { id, name: input.name, tag: input.tag };
    plants.set(id, plant);
    recordChange('plant.created', id);
    return answer(201, input.tag === undefined ? { name: input.name } : { name: input.name, tag: input.tag }, {
      location: `${prefix}/plants/${id}`,
      etag: etagOf(id) as string,
      'x-change-seq': String(newest()),
    });
  };

  // POST /plants/batch like the real server: all or nothing, the first invalid element named, an
  // id given twice (never saved) or taken (saved) a 409, the key over the whole array, in one key
  // space with the creates'.
  const createMany = (res: ServerResponse, body: string, key: string | undefined): void => {
    const saved = key === undefined ? undefined : idempotencyKeys.get(key);
    if (saved !== undefined) {
      if (saved.body !== body) {
        return sendError(res, 422, `Idempotency-Key ${JSON.stringify(key)} was already used with a different request`);
      }
      return sendJson(res, saved.status, saved.answer, { ...saved.headers, 'idempotent-replayed': 'true' });
    }
    const answer = (status: number, json: unknown, headers: Record<string, string> = {}): void => {
      if (key !== undefined) idempotencyKeys.set(key, { body, status, headers, answer: json });
      sendJson(res, status, json, headers);
    };
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      return sendError(res, 400, 'the body is not valid JSON');
    }
    const decoded = CreatePlantsRequest.decode(json);
    if (E.isLeft(decoded)) return sendError(res, 400, formatErrors(decoded.left).join('; '));
    const given = decoded.right.flatMap((p) => (p.id === undefined ? [] : [p.id]));
    const twice = given.find((id, i) => given.indexOf(id) < i);
    if (twice !== undefined) return sendError(res, 409, `id ${twice} is given twice in the array; nothing was created`);
    const taken = given.filter((id) => plants.has(id));
    if (taken.length > 0)
      return answer(409, {
        error: 409,
        message: `plants with ids ${taken.join(', ')} already exist; nothing was created`,
      });
    let next = Math.max(0, ...plants.keys(), ...given) + 1;
    const created = decoded.right.map((input): Plant => {
      const id = (input.id ?? next++) as PlantId;
      const plant: Plant =
        input.tag === undefined ? { id, name: input.name } : { id, name: input.name, tag: input.tag };
      plants.set(id, plant);
      recordChange('plant.created', id);
      return plant;
    });
    return answer(201, created, { 'x-change-seq': String(newest()) });
  };

  const route = (req: IncomingMessage, res: ServerResponse, body: string): void => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (!url.pathname.startsWith(`${prefix}/plants`)) return sendError(res, 404, `no route ${url.pathname}`);
    const rest = url.pathname.slice(`${prefix}/plants`.length);
    const method = req.method ?? 'GET';
    const allowed =
      rest === ''
        ? ['GET', 'POST']
        : rest === '/changes'
          ? ['GET']
          : rest === '/batch'
            ? ['POST']
            : ['GET', 'PUT', 'PATCH', 'DELETE'];
    if (!allowed.includes(method))
      return sendError(res, 405, `${method} is not allowed here`, { allow: allowed.join(', ') });

    const auth = req.headers.authorization;
    const match = auth === undefined ? null : /^bearer (.*)$/i.exec(auth);
    if (match === null) return sendError(res, 401, 'missing bearer token', { 'www-authenticate': challenge() });
    const token = match[1] ?? '';
    if (!/^[A-Za-z0-9\-._~+/]+=*$/.test(token)) {
      return sendError(res, 400, 'malformed bearer token', { 'www-authenticate': challenge('invalid_request') });
    }
    if (token !== TOKEN && token !== READ_ONLY_TOKEN) {
      return sendError(res, 401, 'unknown, expired or revoked token', {
        'www-authenticate': challenge('invalid_token'),
      });
    }
    if (method !== 'GET' && token !== TOKEN) {
      return sendError(res, 403, 'this token lacks the scope plants:write', {
        'www-authenticate': challenge('insufficient_scope'),
      });
    }

    if (rest === '/changes') return changeFeed(req, res, url);

    if ((rest === '' || rest === '/batch') && method === 'POST') {
      const type = req.headers['content-type'] ?? '';
      if (!/^application\/json\s*(;\s*charset=utf-8\s*)?$/i.test(type))
        return sendError(res, 415, 'expected Content-Type: application/json');
      const limit = rest === '' ? MAX_BODY : bulkLimit.bytes;
      if (Buffer.byteLength(body) > limit) return sendError(res, 413, `the body is larger than ${limit} bytes`);
      const field = req.headers['idempotency-key'];
      const key = typeof field === 'string' ? parseIdempotencyKeyField(field) : undefined;
      if (field !== undefined && key === undefined) {
        return sendError(
          res,
          400,
          `Idempotency-Key: expected 1–255 characters from A–Z a–z 0–9 . _ : ~ + / = -, got ${describeValue(field)}`,
        );
      }
      return rest === '' ? create(res, body, key) : createMany(res, body, key);
    }

    if (rest === '' && method === 'GET') {
      if (/(^|&)tag(&|$)/.test(url.search.slice(1))) return sendError(res, 400, 'tag: expected tag=<tag>');
      const decoded = ListQuery.decode(queryRecord(url.searchParams));
      if (E.isLeft(decoded)) return sendError(res, 400, formatErrors(decoded.left).join('; '));
      const { limit, after, tag, q, sort, cursor } = decoded.right;
      const made = { sort, q: q ?? null, tag: tag ?? null };
      let from: PageCursorState | undefined;
      if (cursor !== undefined) {
        from = readCursor(cursor);
        if (from === undefined || from.sort !== made.sort || from.q !== made.q || from.tag !== made.tag) {
          return sendError(res, 400, 'cursor: not a cursor of this sort, q and tag');
        }
      }
      const descending = sort.startsWith('-');
      const direction = descending ? -1 : 1;
      const order = (a: Plant, b: Plant): number =>
        direction * (isNameSort(sort) ? compareCodePoints(fold(a.name), fold(b.name)) || a.id - b.id : a.id - b.id);
      const needle = q === undefined ? undefined : fold(q);
      const past = (p: Plant): boolean => {
        if (from !== undefined) {
          const key = compareCodePoints(fold(p.name), from.name) || p.id - from.id;
          return direction * key > 0;
        }
        return isNameSort(sort) || after === 0 || direction * (p.id - after) > 0;
      };
      const matching = [...plants.values()].filter(
        (p) => (tag === undefined || p.tag === tag) && (needle === undefined || fold(p.name).includes(needle)),
      );
      const page = matching.filter(past).sort(order).slice(0, limit);
      const last = page[page.length - 1];
      const headers: Record<string, string> = {};
      if (page.length === limit && last !== undefined) {
        // In the real server's order: limit, after, sort, tag, q, cursor.
        const next = new URLSearchParams({
          limit: String(limit),
          ...(isNameSort(sort) ? {} : { after: String(last.id) }),
          ...(sort === 'id' ? {} : { sort }),
          ...(tag === undefined ? {} : { tag }),
          ...(q === undefined ? {} : { q }),
          ...(isNameSort(sort) ? { cursor: writeCursor({ ...made, name: fold(last.name), id: last.id }) } : {}),
        });
        headers['link'] = `<${prefix}/plants?${next}>; rel="next"`;
      }
      headers['x-change-seq'] = String(newest());
      if (hasPreference(req.headers.prefer, 'count', 'exact')) {
        headers['x-total-count'] = String(matching.length);
        headers['preference-applied'] = 'count=exact';
      }
      return sendJson(res, 200, page, headers);
    }

    const id = PlantIdFromPath.decode(rest.slice(1));
    if (E.isLeft(id)) return sendError(res, 400, `id: expected a plant id, got ${describeValue(rest.slice(1))}`);
    const conditions: { ifMatch?: '*' | string[]; ifNoneMatch?: '*' | string[] } = {};
    for (const [name, key] of [
      ['if-match', 'ifMatch'],
      ['if-none-match', 'ifNoneMatch'],
    ] as const) {
      const field = req.headers[name];
      if (field === undefined) continue;
      const parsed = parseCondition(field);
      if (parsed === undefined)
        return sendError(res, 400, `${name === 'if-match' ? 'If-Match' : 'If-None-Match'}: expected * or entity-tags`);
      conditions[key] = parsed;
    }
    let patch: UpdatePlantRequest | undefined;
    if (method === 'PATCH') {
      const type = req.headers['content-type'] ?? '';
      if (!/^application\/(merge-patch\+)?json\s*(;\s*charset=utf-8\s*)?$/i.test(type)) {
        return sendError(res, 415, 'expected Content-Type: application/merge-patch+json');
      }
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        return sendError(res, 400, 'the body is not valid JSON');
      }
      const decoded = UpdatePlantRequest.decode(json);
      if (E.isLeft(decoded)) return sendError(res, 400, formatErrors(decoded.left).join('; '));
      patch = decoded.right;
    }
    let replacement: ReplacePlantRequest | undefined;
    if (method === 'PUT') {
      const type = req.headers['content-type'] ?? '';
      if (!/^application\/json\s*(;\s*charset=utf-8\s*)?$/i.test(type))
        return sendError(res, 415, 'expected Content-Type: application/json');
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        return sendError(res, 400, 'the body is not valid JSON');
      }
      const decoded = ReplacePlantRequest.decode(json);
      if (E.isLeft(decoded)) return sendError(res, 400, formatErrors(decoded.left).join('; '));
      replacement = decoded.right;
    }
    const plant = plants.get(id.right);
    const made = (from: ReplacePlantRequest): Plant =>
      from.tag === undefined ? { id: id.right, name: from.name } : { id: id.right, name: from.name, tag: from.tag };
    if (plant === undefined && replacement !== undefined) {
      // A PUT creates a missing plant, unless If-Match (which needs one); If-None-Match holds.
      if (conditions.ifMatch !== undefined)
        return sendError(res, 412, `no plant with id ${id.right}: If-Match needs an existing plant`);
      plants.set(id.right, made(replacement));
      recordChange('plant.created', id.right);
      return sendJson(res, 201, plants.get(id.right), {
        location: `${prefix}/plants/${id.right}`,
        etag: etagOf(id.right) as string,
        'x-change-seq': String(newest()),
      });
    }
    if (plant === undefined) {
      const seq: Record<string, string> = method === 'GET' ? { 'x-change-seq': String(newest()) } : {};
      return sendError(res, 404, `no plant with id ${id.right}`, seq);
    }
    const current = etagOf(id.right) as string;
    // If-Match compares strongly (a weak tag never matches); If-None-Match weakly.
    const { ifMatch, ifNoneMatch } = conditions;
    if (ifMatch !== undefined && ifMatch !== '*' && !ifMatch.includes(current)) {
      return sendError(res, 412, `plant ${id.right} has changed: If-Match does not name its current ETag`);
    }
    const noneMatches =
      ifNoneMatch !== undefined && (ifNoneMatch === '*' || ifNoneMatch.some((tag) => opaque(tag) === current));
    if (noneMatches && method !== 'GET') return sendError(res, 412, `plant ${id.right} matches If-None-Match`);
    if (noneMatches) {
      res.writeHead(304, { etag: current });
      return void res.end();
    }
    if (method === 'DELETE') {
      plants.delete(id.right);
      generations.set(id.right, (generations.get(id.right) ?? 0) + 1);
      recordChange('plant.deleted', id.right, plant.tag);
      res.writeHead(204, { 'x-change-seq': String(newest()) });
      return void res.end();
    }
    if (patch !== undefined) {
      const name = patch.name ?? plant.name;
      const tag = patch.tag === undefined ? plant.tag : (patch.tag ?? undefined);
      plants.set(id.right, tag === undefined ? { id: id.right, name } : { id: id.right, name, tag });
      if (etagOf(id.right) !== current) recordChange('plant.updated', id.right, plant.tag);
    }
    if (replacement !== undefined) {
      plants.set(id.right, made(replacement));
      if (etagOf(id.right) !== current) recordChange('plant.updated', id.right, plant.tag);
    }
    // Every answer here carries where it stands in the change log: a read's snapshot, a write's change.
    const headers: Record<string, string> = { etag: etagOf(id.right) as string, 'x-change-seq': String(newest()) };
    return sendJson(res, 200, plants.get(id.right), headers);
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const given = req.headers['x-request-id'];
      res.setHeader('x-request-id', typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID());
      const scripted = queue.shift();
      if (scripted !== undefined) scripted(req, res, body, route);
      else route(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}${prefix}`,
    plants,
    etagOf,
    requests,
    idempotencyKeys,
    enqueue: (...handlers) => void queue.push(...handlers),
    changes,
    leftTags,
    feed,
    openStreams: () => streams.size,
    endStreams: () => {
      for (const { res } of streams) res.end();
    },
    cutStreams: () => {
      for (const { res } of streams) res.destroy();
    },
    writeToStreams: (text) => {
      for (const { res } of streams) res.write(text);
    },
    bookmarkStreams: () => {
      const at = newest();
      for (const stream of streams) {
        if (stream.tag === null || stream.position >= at) continue;
        stream.position = at;
        stream.res.write(`id: ${at}\nevent: bookmark\ndata: {"seq":${at}}\n\n`);
      }
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error === undefined ? resolve() : reject(error)));
      }),
  };
};

/** The PlantStoreError `promise` rejects with; any other rejection, or a resolve, fails the test. */
/** Replaces what `server` holds with `plants`. */
export const stagePlants = (
  server: FakeServer,
  plants: readonly { id: number; name: string; tag?: string }[],
): void => {
  server.plants.clear();
  for (const plant of plants) server.plants.set(plant.id, plant as Plant);
};

/** Every plant an iteration (`all(…)`) yields, in order. */
export const collectPlants = async (iterable: AsyncIterable<Plant>): Promise<Plant[]> => {
  const plants: Plant[] = [];
  for await (const plant of iterable) plants.push(plant);
  return plants;
};

export const rejection = async (promise: Promise<unknown>): Promise<PlantStoreError> => {
  try {
    await promise;
  } catch (error) {
    if (error instanceof PlantStoreError) return error;
    throw error;
  }
  throw new Error('expected the promise to reject');
};

/**
 * A client of `server` whose retries wait a few ms only, recording every retry it makes in
 * `retries` (a beforeRetry hook); `options` override the defaults.
 */
export const fastRetryingClient = (
  server: FakeServer,
  retries: RetryInfo[],
  options: Partial<PlantStoreClientOptions> = {},
): PlantStoreClient =>
  createPlantStoreClient({
    baseUrl: server.url,
    token: TOKEN,
    retry: { limit: 2, baseDelayMs: 1, maxDelayMs: 5 },
    hooks: { beforeRetry: [(info) => void retries.push(info)] },
    ...options,
  });

/** Resolves once `check()` holds, looking every 5 ms; rejects naming `what` after `timeoutMs`. */
export const eventually = async (what: string, check: () => boolean, timeoutMs = 5000): Promise<void> => {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
};

/** The requests `server` received for the change feed, in order. */
export const feedRequests = (server: FakeServer): RecordedRequest[] =>
  server.requests.filter((r) => r.url.startsWith('/plants/changes'));
