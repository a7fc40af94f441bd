import type Router from '@koa/router';
import {
  CreatePlantRequest,
  CreatePlantResponse,
  decodeWith,
  hasPreference,
  invalidPlant,
  ListQuery,
  preconditionFailed,
  Plant,
  PlantIdFromPath,
  PlantPage,
  ReplacePlantRequest,
  UpdatePlantRequest,
  type InvalidPlant,
} from '@plant-store/domain';
import * as E from 'fp-ts/lib/Either.js';
import { canonicalRequest } from '../idempotency/canonical-request.js';
import { KeysInFlight } from '../idempotency/keys-in-flight.js';
import type { NextPage, PlantService } from '../plants/plant-service.js';
import {
  failedPrecondition,
  type AtChange,
  type IdempotencyKeyReused,
  type KeyedCreate,
  type StoreError,
  type VersionedPlant,
} from '../ports/plant-store.js';
import type { RateLimiter } from '../rate-limit/rate-limiter.js';
import { ownerOf, type Authenticator } from '../tokens/principal.js';
import { etagOf } from '../wire/etag.js';
import { requireScope } from './auth.js';
import type { AppContext, AppState, BodyProblem } from './context.js';
import { readConditions } from './conditional.js';
import { parseFormQuery } from './form-query.js';
import { readIdempotencyKey } from './idempotency-key-header.js';
import { createJsonBody } from './json-body.js';
import { idempotencyKeyInFlight } from './request-error.js';
import { sendError, sendJson, setHeader } from './respond.js';

const decodeCreate = decodeWith(CreatePlantRequest);
const decodeId = decodeWith(PlantIdFromPath, 'id');
const decodeListQuery = decodeWith(ListQuery);
const decodeUpdate = decodeWith(UpdatePlantRequest);
const decodeReplace = decodeWith(ReplacePlantRequest);

/**
 * A create's body, decoded; with problems the JSON body step found in the raw text, the one 400
 * naming them and the codec's problems with the rest of the body. The codec does not see the
 * members those are about: it would judge their rounded values, and name them twice.
 */
const decodeCreateBody = (
  body: unknown,
  fromBody: readonly BodyProblem[],
): E.Either<InvalidPlant, CreatePlantRequest> => {
  if (fromBody.length === 0) return decodeCreate(body);
  const fields = new Set(fromBody.map((p) => p.field));
  const rest = Object.fromEntries(Object.entries(body as object).filter(([key]) => !fields.has(key)));
  const others = decodeCreate(rest);
  return E.left(invalidPlant([...(E.isLeft(others) ? others.left.problems : []), ...fromBody.map((p) => p.problem)]));
};

/**
 * `X-Change-Seq`: where the answer stands in the change log (a write's own change, or the
 * snapshot a read or an unchanged write saw). A replay of an outcome saved before change numbers
 * were saved has none, and says none.
 */
const setChangeSeq = (ctx: AppContext, { changeSeq }: Partial<AtChange>): void => {
  if (changeSeq !== undefined) setHeader(ctx, 'X-Change-Seq', String(changeSeq));
};

/** The 201 of a create: `Location` carries the id, the body name and tag only; the plant's ETag. */
const answerCreated = (ctx: AppContext, created: VersionedPlant & Partial<AtChange>): void => {
  const { plant, version } = created;
  ctx.status = 201;
  setHeader(ctx, 'Location', `/plants/${plant.id}`);
  setHeader(ctx, 'ETag', etagOf(version));
  setChangeSeq(ctx, created);
  sendJson(ctx, CreatePlantResponse.encode(plant));
};

/** A 200 with the whole plant and its ETag. */
const answerPlant = (ctx: AppContext, { plant, version }: VersionedPlant): void => {
  setHeader(ctx, 'ETag', etagOf(version));
  sendJson(ctx, Plant.encode(plant));
};

/**
 * The `Link` of the next page: every parameter it needs (limit; after for an id order; sort
 * unless id; tag; q; cursor for a name order), form-urlencoded as URLSearchParams writes it.
 */
const nextLink = (query: ListQuery, next: NextPage): string => {
  const params = new URLSearchParams({ limit: String(query.limit) });
  if ('after' in next) params.set('after', String(next.after));
  if (query.sort !== 'id') params.set('sort', query.sort);
  if (query.tag !== undefined) params.set('tag', query.tag);
  if (query.q !== undefined) params.set('q', query.q);
  if ('cursor' in next) params.set('cursor', next.cursor);
  return `</plants?${params.toString()}>; rel="next"`;
};

export interface PlantRoutesDeps {
  readonly service: PlantService;
  readonly auth: Authenticator;
  readonly bodyLimitBytes: number;
  /** Per-principal rate limiting after authentication; absent: off (nothing consulted). */
  readonly rateLimiter?: RateLimiter | undefined;
  /** Called after a write committed (the change feed reads the log at once). */
  readonly onCommit?: (() => void) | undefined;
  /** The keys in flight, shared with POST /plants/batch (one key space); absent: this route's own. */
  readonly keysInFlight?: KeysInFlight | undefined;
}

/** The /plants routes: authenticate, decode the request, call the service, encode the answer. */
export const addPlantRoutes = (
  router: Router<AppState>,
  { service, auth, bodyLimitBytes, rateLimiter, onCommit = () => undefined, keysInFlight }: PlantRoutesDeps,
): void => {
  const canRead = requireScope(auth, 'plants:read', rateLimiter);
  const canWrite = requireScope(auth, 'plants:write', rateLimiter);

  // The Idempotency-Key's syntax is checked after the 415s and before the 413 (docs/reference/api.md).
  const createBody = createJsonBody(bodyLimitBytes, {
    checkHeaders: (ctx) => {
      const key = readIdempotencyKey(ctx.req);
      if (E.isLeft(key)) return key.left;
      ctx.state.idempotencyKey = key.right;
      return undefined;
    },
  });
  const patchBody = createJsonBody(bodyLimitBytes, { mergePatch: true });
  // PUT takes create's media type; an Idempotency-Key is accepted and ignored (PUT is idempotent).
  const putBody = createJsonBody(bodyLimitBytes);
  const inFlight = keysInFlight ?? new KeysInFlight();

  router.post('/plants', canWrite, createBody, async (ctx) => {
    const request = decodeCreateBody(ctx.request.body, ctx.state.bodyProblems ?? []);
    if (E.isLeft(request)) return sendError(ctx, request.left);
    const { idempotencyKey: key, principal } = ctx.state;
    if (key === undefined || principal === undefined) {
      const created = await service.create(request.right)();
      if (E.isLeft(created)) return sendError(ctx, created.left);
      onCommit();
      return answerCreated(ctx, created.right);
    }
    const claim = { owner: ownerOf(principal), key, request: canonicalRequest(request.right) };
    if (!inFlight.tryHold(claim.owner, key)) return sendError(ctx, idempotencyKeyInFlight(key));
    let outcome: E.Either<IdempotencyKeyReused | StoreError, KeyedCreate>;
    try {
      outcome = await service.createOnce(request.right, claim)();
    } finally {
      inFlight.release(claim.owner, key);
    }
    if (E.isLeft(outcome)) return sendError(ctx, outcome.left);
    const { result, replayed } = outcome.right;
    if (replayed) setHeader(ctx, 'Idempotent-Replayed', 'true');
    else onCommit();
    return E.isLeft(result) ? sendError(ctx, result.left) : answerCreated(ctx, result.right);
  });

  router.get('/plants', canRead, async (ctx) => {
    const query = E.chain(decodeListQuery)(parseFormQuery(ctx.querystring));
    if (E.isLeft(query)) return sendError(ctx, query.left);
    const count = hasPreference(ctx.req.headers.prefer, 'count', 'exact');
    const page = await service.list(query.right, { count })();
    if (E.isLeft(page)) return sendError(ctx, page.left);
    const { plants, next, total, changeSeq } = page.right;
    if (next !== undefined) setHeader(ctx, 'Link', nextLink(query.right, next));
    setHeader(ctx, 'X-Change-Seq', String(changeSeq));
    if (total !== undefined) {
      setHeader(ctx, 'X-Total-Count', String(total));
      setHeader(ctx, 'Preference-Applied', 'count=exact');
    }
    sendJson(ctx, PlantPage.encode(plants));
  });

  // RFC 9110 §13.2.2: If-Match first (412), then If-None-Match, which on a GET is a 304.
  router.get('/plants/:id', canRead, async (ctx) => {
    const id = decodeId(ctx.params.id);
    if (E.isLeft(id)) return sendError(ctx, id.left);
    const condition = readConditions(ctx.req);
    if (E.isLeft(condition)) return sendError(ctx, condition.left);
    const found = await service.get(id.right)();
    if (E.isLeft(found)) {
      // A 404 read a snapshot too, and says which.
      if (found.left._tag === 'PlantNotFound') setChangeSeq(ctx, found.left);
      return sendError(ctx, found.left);
    }
    setChangeSeq(ctx, found.right);
    const failed = failedPrecondition(condition.right, found.right.version);
    if (failed === 'If-Match') return sendError(ctx, preconditionFailed(id.right, failed));
    if (failed === 'If-None-Match') {
      ctx.status = 304;
      setHeader(ctx, 'ETag', etagOf(found.right.version));
      return;
    }
    answerPlant(ctx, found.right);
  });

  router.patch('/plants/:id', canWrite, patchBody, async (ctx) => {
    const id = decodeId(ctx.params.id);
    if (E.isLeft(id)) return sendError(ctx, id.left);
    const patch = decodeUpdate(ctx.request.body);
    if (E.isLeft(patch)) return sendError(ctx, patch.left);
    const condition = readConditions(ctx.req);
    if (E.isLeft(condition)) return sendError(ctx, condition.left);
    const { id: _never, ...changes } = patch.right;
    const updated = await service.update(id.right, changes, condition.right)();
    if (E.isLeft(updated)) return sendError(ctx, updated.left);
    onCommit();
    setChangeSeq(ctx, updated.right);
    answerPlant(ctx, updated.right);
  });

  // Replace or create (RFC 9110 §9.3.4): 201 with Location when the plant was absent, else 200.
  router.put('/plants/:id', canWrite, putBody, async (ctx) => {
    const id = decodeId(ctx.params.id);
    if (E.isLeft(id)) return sendError(ctx, id.left);
    const plant = decodeReplace(ctx.request.body);
    if (E.isLeft(plant)) return sendError(ctx, plant.left);
    const condition = readConditions(ctx.req);
    if (E.isLeft(condition)) return sendError(ctx, condition.left);
    const { id: _never, ...body } = plant.right;
    const replaced = await service.replace(id.right, body, condition.right)();
    if (E.isLeft(replaced)) return sendError(ctx, replaced.left);
    onCommit();
    if (replaced.right.created) {
      ctx.status = 201;
      setHeader(ctx, 'Location', `/plants/${id.right}`);
    }
    setChangeSeq(ctx, replaced.right);
    answerPlant(ctx, replaced.right);
  });

  router.delete('/plants/:id', canWrite, async (ctx) => {
    const id = decodeId(ctx.params.id);
    if (E.isLeft(id)) return sendError(ctx, id.left);
    const condition = readConditions(ctx.req);
    if (E.isLeft(condition)) return sendError(ctx, condition.left);
    const removed = await service.remove(id.right, condition.right)();
    if (E.isLeft(removed)) return sendError(ctx, removed.left);
    onCommit();
    setChangeSeq(ctx, removed.right);
    ctx.status = 204;
  });
};
