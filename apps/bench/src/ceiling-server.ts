import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import {
  CreatePlantRequest,
  ListQuery,
  PlantIdFromPath,
  UpdatePlantRequest,
  formatErrors,
  type Plant,
  type PlantId,
} from '@plant-store/domain';
import * as E from 'fp-ts/lib/Either.js';
import { createBearerCheck } from './bearer-check.js';

/**
 * The ceiling: a plain node:http server doing the same per-request work as the Plant Store (bearer
 * check by SHA-256 + timingSafeEqual, src/bearer-check.ts; body decoded with CreatePlantRequest or
 * UpdatePlantRequest) over an in-memory Map, replying through setImmediate so one event-loop turn
 * reads every ready socket before writing. Our server's figures are shown as ratios to this one's.
 * No ETags and no conditional requests: the bench sends none.
 */

const MAX_BODY_BYTES = 16 * 1024;
const JSON_TYPE = /^application\/json\s*(;\s*charset=utf-8\s*)?$/i;
const MERGE_PATCH_TYPE = /^application\/(merge-patch\+)?json\s*(;\s*charset=utf-8\s*)?$/i;

interface Reply {
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: unknown;
}

const error = (status: number, message: string, headers?: Readonly<Record<string, string>>): Reply =>
  headers === undefined
    ? { status, body: { error: status, message } }
    : { status, headers, body: { error: status, message } };

const send = (res: ServerResponse, reply: Reply): void => {
  setImmediate(() => {
    const headers: Record<string, string | number> = { ...reply.headers };
    if (reply.body === undefined) {
      res.writeHead(reply.status, headers);
      res.end();
      return;
    }
    const body = JSON.stringify(reply.body);
    headers['content-type'] = 'application/json';
    headers['content-length'] = Buffer.byteLength(body);
    res.writeHead(reply.status, headers);
    res.end(body);
  });
};

/** Ids kept sorted beside the Map, so a list page costs O(log n + limit) as the contract asks. */
class SortedIds {
  private readonly ids: number[] = [];

  /** Index of the first id greater than `after`. */
  firstAfter(after: number): number {
    let lo = 0;
    let hi = this.ids.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.ids[mid] as number) <= after) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  insert(id: number): void {
    const last = this.ids[this.ids.length - 1];
    if (last === undefined || id > last) this.ids.push(id);
    else this.ids.splice(this.firstAfter(id), 0, id);
  }

  remove(id: number): void {
    const at = this.firstAfter(id - 1);
    if (this.ids[at] === id) this.ids.splice(at, 1);
  }

  slice(from: number, count: number): readonly number[] {
    return this.ids.slice(from, from + count);
  }

  get max(): number {
    return this.ids[this.ids.length - 1] ?? 0;
  }
}

export interface CeilingServer {
  readonly server: Server;
  /** How many plants the Map holds. */
  size(): number;
}

export const createCeilingServer = (token: string): CeilingServer => {
  const checkBearer = createBearerCheck(token);
  const plants = new Map<number, Plant>();
  const sorted = new SortedIds();
  /** The ids of each tag's plants, for `?tag=`. */
  const byTag = new Map<string, SortedIds>();

  const authenticate = (req: IncomingMessage): Reply | undefined => {
    const denial = checkBearer(req.headers.authorization);
    return denial === undefined
      ? undefined
      : error(denial.status, denial.message, { 'www-authenticate': denial.wwwAuthenticate });
  };

  const ofTag = (tag: string): SortedIds => {
    const ids = byTag.get(tag) ?? new SortedIds();
    byTag.set(tag, ids);
    return ids;
  };
  const store = (plant: Plant): void => {
    plants.set(plant.id, plant);
    sorted.insert(plant.id);
    if (plant.tag !== undefined) ofTag(plant.tag).insert(plant.id);
  };
  const unstore = (plant: Plant): void => {
    plants.delete(plant.id);
    sorted.remove(plant.id);
    if (plant.tag !== undefined) ofTag(plant.tag).remove(plant.id);
  };

  const parseJson = (
    raw: Buffer,
    contentType: string | undefined,
    mediaTypes: RegExp,
    expected: string,
  ): Reply | { readonly json: unknown } => {
    if (contentType === undefined || !mediaTypes.test(contentType))
      return error(415, `expected Content-Type: ${expected}`);
    try {
      return { json: JSON.parse(raw.toString('utf8')) as unknown };
    } catch {
      return error(400, 'body is not valid JSON');
    }
  };

  const create = (raw: Buffer, contentType: string | undefined): Reply => {
    const parsed = parseJson(raw, contentType, JSON_TYPE, 'application/json');
    if (!('json' in parsed)) return parsed;
    const decoded = CreatePlantRequest.decode(parsed.json);
    if (E.isLeft(decoded)) return error(400, formatErrors(decoded.left, 'body').join('; '));
    const request = decoded.right;
    const id = request.id ?? ((sorted.max + 1) as PlantId);
    if (plants.has(id)) return error(409, `plant ${id} already exists`);
    store(request.tag === undefined ? { id, name: request.name } : { id, name: request.name, tag: request.tag });
    return {
      status: 201,
      headers: { location: `/plants/${id}` },
      body: request.tag === undefined ? { name: request.name } : { name: request.name, tag: request.tag },
    };
  };

  /** JSON Merge Patch of `name` and `tag` (null removes the tag). */
  const patch = (plant: Plant, raw: Buffer, contentType: string | undefined): Reply => {
    const parsed = parseJson(raw, contentType, MERGE_PATCH_TYPE, 'application/merge-patch+json');
    if (!('json' in parsed)) return parsed;
    const decoded = UpdatePlantRequest.decode(parsed.json);
    if (E.isLeft(decoded)) return error(400, formatErrors(decoded.left, 'body').join('; '));
    const { name = plant.name, tag } = decoded.right;
    const newTag = tag === undefined ? plant.tag : (tag ?? undefined);
    const changed: Plant = newTag === undefined ? { id: plant.id, name } : { id: plant.id, name, tag: newTag };
    // The id stays, so the sorted ids do too (a splice there costs O(plants)); only a new tag
    // moves the plant between tag lists.
    plants.set(plant.id, changed);
    if (newTag !== plant.tag) {
      if (plant.tag !== undefined) ofTag(plant.tag).remove(plant.id);
      if (newTag !== undefined) ofTag(newTag).insert(plant.id);
    }
    return { status: 200, body: changed };
  };

  const list = (search: string): Reply => {
    const query: Record<string, string | string[]> = {};
    for (const [key, value] of new URLSearchParams(search)) {
      const seen = query[key];
      query[key] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
    }
    const decoded = ListQuery.decode(query);
    if (E.isLeft(decoded)) return error(400, formatErrors(decoded.left, 'query').join('; '));
    const { limit, after, tag } = decoded.right;
    const ids = tag === undefined ? sorted : (byTag.get(tag) ?? new SortedIds());
    const page = ids.slice(ids.firstAfter(after), limit).map((id) => plants.get(id));
    const last = page[page.length - 1];
    const next = new URLSearchParams({ limit: String(limit), after: String(last?.id ?? 0) });
    if (tag !== undefined) next.set('tag', tag);
    return page.length === limit && last !== undefined
      ? { status: 200, headers: { link: `</plants?${next.toString()}>; rel="next"` }, body: page }
      : { status: 200, body: page };
  };

  /** GET, DELETE, or PATCH with its body. */
  const byId = (
    method: string,
    segment: string,
    body?: { readonly raw: Buffer; readonly contentType: string | undefined },
  ): Reply => {
    const decoded = PlantIdFromPath.decode(segment);
    if (E.isLeft(decoded)) return error(400, formatErrors(decoded.left, 'id').join('; '));
    const id = decoded.right;
    const plant = plants.get(id);
    if (plant === undefined) return error(404, `no plant with id ${id}`);
    if (method === 'GET') return { status: 200, body: plant };
    if (body !== undefined) return patch(plant, body.raw, body.contentType);
    unstore(plant);
    return { status: 204 };
  };

  const server = createServer((req, res) => {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    const search = q === -1 ? '' : url.slice(q + 1);
    const method = req.method ?? 'GET';

    if (path === '/healthz' || path === '/readyz') return send(res, { status: 200, body: { status: 'ok' } });
    const isCollection = path === '/plants';
    const isItem = path.startsWith('/plants/') && path.indexOf('/', 8) === -1;
    if (!isCollection && !isItem) return send(res, error(404, 'no such route'));
    const allowed = isCollection ? ['GET', 'POST'] : ['GET', 'PATCH', 'DELETE'];
    if (!allowed.includes(method))
      return send(res, error(405, `method ${method} not allowed`, { allow: allowed.join(', ') }));
    const denied = authenticate(req);
    if (denied !== undefined) {
      req.resume();
      return send(res, denied);
    }
    if (method === 'GET' || method === 'DELETE') return send(res, isItem ? byId(method, path.slice(8)) : list(search));

    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) tooLarge = true;
      else chunks.push(chunk);
    });
    req.on('end', () => {
      if (tooLarge) return send(res, error(413, `body larger than ${MAX_BODY_BYTES} bytes`));
      const raw = Buffer.concat(chunks);
      const contentType = req.headers['content-type'];
      send(res, isItem ? byId(method, path.slice(8), { raw, contentType }) : create(raw, contentType));
    });
  });
  server.keepAliveTimeout = 60_000;

  return { server, size: () => plants.size };
};
