import { createServer } from 'node:http';
import Router from '@koa/router';
import Koa, { type Context, type Next } from 'koa';
import bodyParser from 'koa-bodyparser';
import { MAX_NAME_LENGTH, MAX_TAG_LENGTH, textProblem } from '@plant-store/domain';
import { createBearerCheck } from '../bearer-check.js';
import {
  closeServer,
  DEFAULT_LIMIT,
  errorBody,
  idFromPath,
  ID_PATH_PROBLEM,
  isCursor,
  LIMIT,
  listenOn,
  MAX_BODY_BYTES,
  nextLink,
  type Checked,
  type NewPlant,
  type PeerFactory,
  type PlantChanges,
} from './peer.js';
import { openSqlitePlants } from './sqlite-plants.js';

/**
 * Peer `koa-minimal`, the floor of our own stack: Koa 3 + @koa/router + koa-bodyparser over
 * better-sqlite3 (WAL, `synchronous=NORMAL`, one transaction per request, the store of
 * `fastify-sqlite`), the bearer check as a middleware, validation written by hand (the contract's
 * text rule is the domain's `textProblem`; no io-ts), no logging, no extra headers. What our server
 * costs above this is what its own layers cost.
 */

/** Why a value is not a text of 1…max characters by the contract's rules, or undefined. */
const textError = (value: unknown, max: number): string | undefined =>
  typeof value === 'string'
    ? textProblem(value, max)
    : `expected a string, got ${value === null ? 'null' : typeof value}`;

const isObject = (body: unknown): body is Readonly<Record<string, unknown>> =>
  typeof body === 'object' && body !== null && !Array.isArray(body);

const invalid = (problems: readonly string[]): Checked<never> => ({ ok: false, problems });

/** The create body: `name`, optional `tag` and `id`, nothing else. */
export const checkCreate = (body: unknown): Checked<NewPlant> => {
  if (!isObject(body)) return invalid(['body: expected a JSON object']);
  const problems: string[] = [];
  for (const key of Object.keys(body))
    if (key !== 'name' && key !== 'tag' && key !== 'id')
      problems.push(`body.${key}: unknown member (allowed: name, tag, id)`);
  const { name, tag, id } = body;
  const nameProblem = name === undefined ? 'required' : textError(name, MAX_NAME_LENGTH);
  if (nameProblem !== undefined) problems.push(`body.name: ${nameProblem}`);
  const tagProblem = tag === undefined ? undefined : textError(tag, MAX_TAG_LENGTH);
  if (tagProblem !== undefined) problems.push(`body.tag: ${tagProblem}`);
  if (id !== undefined && !(typeof id === 'number' && Number.isSafeInteger(id) && id >= 1))
    problems.push(`body.id: expected an integer from 1 to ${Number.MAX_SAFE_INTEGER}`);
  if (problems.length > 0) return invalid(problems);
  const plant: NewPlant = {
    name: name as string,
    ...(tag === undefined ? {} : { tag: tag as string }),
    ...(id === undefined ? {} : { id: id as number }),
  };
  return { ok: true, value: plant };
};

/** The merge patch: optional `name`, optional `tag` (null removes it); `id` and anything else refused. */
export const checkPatch = (body: unknown): Checked<PlantChanges> => {
  if (!isObject(body)) return invalid(['body: expected a JSON object']);
  const problems: string[] = [];
  for (const key of Object.keys(body)) {
    if (key === 'id') problems.push('body.id: cannot be changed: a plant keeps its id (the one in the path)');
    else if (key !== 'name' && key !== 'tag') problems.push(`body.${key}: unknown member (allowed: name, tag)`);
  }
  const { name, tag } = body;
  const nameProblem = name === undefined ? undefined : textError(name, MAX_NAME_LENGTH);
  if (nameProblem !== undefined) problems.push(`body.name: ${nameProblem}`);
  const tagProblem = tag === undefined || tag === null ? undefined : textError(tag, MAX_TAG_LENGTH);
  if (tagProblem !== undefined) problems.push(`body.tag: ${tagProblem}`);
  if (problems.length > 0) return invalid(problems);
  const changes: PlantChanges = {
    ...(name === undefined ? {} : { name: name as string }),
    ...(tag === undefined ? {} : { tag: tag as string | null }),
  };
  return { ok: true, value: changes };
};

const LIST_PARAMS = new Set(['limit', 'after', 'tag']);

export interface ListRequest {
  readonly limit: number;
  readonly after: number;
  readonly tag: string | undefined;
}

/** The list query (a repeated parameter arrives as an array): `limit` 1…1000 (100), `after` (0), `tag`. */
export const checkList = (
  query: Readonly<Record<string, string | readonly string[] | undefined>>,
): Checked<ListRequest> => {
  const problems: string[] = [];
  for (const key of Object.keys(query)) {
    if (!LIST_PARAMS.has(key)) problems.push(`query.${key}: unknown query parameter (allowed: limit, after, tag)`);
    else if (typeof query[key] !== 'string')
      problems.push(`query.${key}: expected a single value, got the parameter repeated`);
  }
  const { limit, after, tag } = query;
  if (typeof limit === 'string' && !LIMIT.test(limit)) problems.push('query.limit: expected an integer from 1 to 1000');
  if (typeof after === 'string' && !isCursor(after))
    problems.push(`query.after: expected an integer from 0 to ${Number.MAX_SAFE_INTEGER}`);
  const tagProblem = typeof tag === 'string' ? textProblem(tag, MAX_TAG_LENGTH) : undefined;
  if (tagProblem !== undefined) problems.push(`query.tag: ${tagProblem}`);
  if (problems.length > 0) return invalid(problems);
  return {
    ok: true,
    value: {
      limit: typeof limit === 'string' ? Number(limit) : DEFAULT_LIMIT,
      after: typeof after === 'string' ? Number(after) : 0,
      tag: typeof tag === 'string' ? tag : undefined,
    },
  };
};

const fail = (ctx: Context, status: number, message: string): void => {
  ctx.status = status;
  ctx.body = errorBody(status, message);
};

export const createKoaMinimalPeer: PeerFactory = async ({ token, database }) => {
  const store = openSqlitePlants(database);
  const checkBearer = createBearerCheck(token);
  const app = new Koa();
  const router = new Router();

  // Errors thrown below (the body parser's 400 and 413) and unknown routes get the contract's body.
  app.use(async (ctx: Context, next: Next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) fail(ctx, 404, 'no such route');
    } catch (error) {
      const status = (error as { status?: unknown }).status;
      if (typeof status === 'number' && status >= 400 && status < 500) fail(ctx, status, (error as Error).message);
      else fail(ctx, 500, 'internal error');
    }
  });
  app.use(async (ctx: Context, next: Next) => {
    if (ctx.path !== '/plants' && !ctx.path.startsWith('/plants/')) return next();
    const denial = checkBearer(ctx.get('authorization') || undefined);
    if (denial === undefined) return next();
    ctx.set('www-authenticate', denial.wwwAuthenticate);
    fail(ctx, denial.status, denial.message);
  });
  app.use(
    bodyParser({
      enableTypes: ['json'],
      jsonLimit: String(MAX_BODY_BYTES),
      strict: true,
      extendTypes: { json: ['application/merge-patch+json'] },
    }),
  );

  const withId =
    (handler: (ctx: Context, id: number) => void): ((ctx: Context) => void) =>
    (ctx) => {
      const id = idFromPath((ctx.params as { readonly id: string }).id);
      if (id === undefined) fail(ctx, 400, `id: ${ID_PATH_PROBLEM}`);
      else handler(ctx, id);
    };
  const notFound = (ctx: Context, id: number): void => fail(ctx, 404, `no plant with id ${id}`);

  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/readyz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.post('/plants', (ctx) => {
    if (!ctx.is('application/json')) return fail(ctx, 415, 'expected Content-Type: application/json');
    const checked = checkCreate(ctx.request.body);
    if (!checked.ok) return fail(ctx, 400, checked.problems.join('; '));
    const { name, tag } = checked.value;
    const id = store.create(checked.value);
    if (id === undefined) return fail(ctx, 409, `plant ${String(checked.value.id)} already exists`);
    ctx.status = 201;
    ctx.set('location', `/plants/${id}`);
    ctx.body = tag === undefined ? { name } : { name, tag };
  });
  router.get('/plants', (ctx) => {
    const checked = checkList(ctx.query);
    if (!checked.ok) return fail(ctx, 400, checked.problems.join('; '));
    const { limit, after, tag } = checked.value;
    const page = store.list(limit, after, tag);
    const link = nextLink(limit, page, tag);
    if (link !== undefined) ctx.set('link', link);
    ctx.body = page;
  });
  router.get(
    '/plants/:id',
    withId((ctx, id) => {
      const plant = store.get(id);
      if (plant === undefined) notFound(ctx, id);
      else ctx.body = plant;
    }),
  );
  router.delete(
    '/plants/:id',
    withId((ctx, id) => {
      if (store.remove(id)) ctx.status = 204;
      else notFound(ctx, id);
    }),
  );
  router.patch(
    '/plants/:id',
    withId((ctx, id) => {
      if (!ctx.is('application/json', 'application/merge-patch+json'))
        return fail(ctx, 415, 'expected Content-Type: application/merge-patch+json or application/json');
      const checked = checkPatch(ctx.request.body);
      if (!checked.ok) return fail(ctx, 400, checked.problems.join('; '));
      const plant = store.update(id, checked.value);
      if (plant === undefined) notFound(ctx, id);
      else ctx.body = plant;
    }),
  );
  app.use(router.routes());

  const server = createServer(app.callback());
  server.keepAliveTimeout = 60_000;
  return {
    listen: (port, host) => listenOn(server, port, host),
    close: async () => {
      if (server.listening) await closeServer(server);
      await store.close();
    },
  };
};
