import type Router from '@koa/router';
import {
  CreatePlantRequest,
  CreatePlantsRequest,
  CreatePlantsResponse,
  decodeWith,
  invalidPlant,
  MAX_BATCH_PLANTS,
  type InvalidPlant,
} from '@plant-store/domain';
import * as E from 'fp-ts/lib/Either.js';
import { canonicalBatchRequest } from '../idempotency/batch-request.js';
import type { KeysInFlight } from '../idempotency/keys-in-flight.js';
import type { IdRepeated } from '../plants/plant-batch.js';
import type { PlantService } from '../plants/plant-service.js';
import type { IdempotencyKeyReused, KeyedBatch, StoreError } from '../ports/plant-store.js';
import type { RateLimiter } from '../rate-limit/rate-limiter.js';
import { ownerOf, type Authenticator } from '../tokens/principal.js';
import { requireScope } from './auth.js';
import type { AppState, BodyProblem } from './context.js';
import { readIdempotencyKey } from './idempotency-key-header.js';
import { createJsonBody } from './json-body.js';
import { idempotencyKeyInFlight, methodNotAllowed } from './request-error.js';
import { sendError, sendJson, setHeader } from './respond.js';

const decodeBatch = decodeWith(CreatePlantsRequest);
const decodeElement = (i: number) => decodeWith(CreatePlantRequest, `[${i}]`);

/**
 * The array of POST /plants/batch, decoded; the one 400 names the first invalid element. With
 * problems the JSON body step found in the raw text (an element's `id` written as a fraction that
 * JSON.parse rounded), that element's are named in place of the codec's word on its `id`, as on
 * POST /plants.
 */
export const decodeBatchBody = (
  body: unknown,
  fromBody: readonly BodyProblem[],
): E.Either<InvalidPlant, readonly CreatePlantRequest[]> => {
  if (fromBody.length === 0 || !Array.isArray(body) || body.length > MAX_BATCH_PLANTS) return decodeBatch(body);
  const byElement = new Map(fromBody.map((p) => [p.element, p.problem]));
  const requests: CreatePlantRequest[] = [];
  for (const [i, element] of (body as readonly unknown[]).entries()) {
    const problem = byElement.get(i);
    if (problem === undefined) {
      const one = decodeElement(i)(element);
      if (E.isLeft(one)) return one;
      requests.push(one.right);
      continue;
    }
    const { id: _rounded, ...rest } = element as Record<string, unknown>;
    const others = decodeElement(i)(rest);
    return E.left(invalidPlant([...(E.isLeft(others) ? others.left.problems : []), problem]));
  }
  return E.right(requests);
};

export interface PlantBatchRoutesDeps {
  readonly service: PlantService;
  readonly auth: Authenticator;
  /** BULK_BODY_LIMIT_BYTES: the largest array accepted, in bytes as sent. */
  readonly bulkBodyLimitBytes: number;
  readonly rateLimiter?: RateLimiter | undefined;
  /** The keys in flight of POST /plants too: one key space for both routes. */
  readonly keysInFlight: KeysInFlight;
  /** Called after an array committed (the change feed reads the log at once). */
  readonly onCommit?: (() => void) | undefined;
  /** Told the length of every array that decoded (the metrics' histogram). */
  readonly onArray?: ((length: number) => void) | undefined;
}

const ALLOW = 'POST, OPTIONS';

/**
 * POST /plants/batch (docs/reference/api.md, "Creating many plants"): an array of creates, all or
 * nothing, in one transaction; keyed like a create, over the whole array. Registered before
 * /plants/:id, which the path also matches: every other method is answered here (405 with Allow,
 * OPTIONS 204), before authentication, as the route fallback answers it for a path of its own.
 */
export const addPlantBatchRoutes = (
  router: Router<AppState>,
  { service, auth, bulkBodyLimitBytes, rateLimiter, keysInFlight, onCommit, onArray }: PlantBatchRoutesDeps,
): void => {
  const canWrite = requireScope(auth, 'plants:write', rateLimiter);
  const arrayBody = createJsonBody(bulkBodyLimitBytes, {
    array: true,
    checkHeaders: (ctx) => {
      const key = readIdempotencyKey(ctx.req);
      if (E.isLeft(key)) return key.left;
      ctx.state.idempotencyKey = key.right;
      return undefined;
    },
  });

  router.all('/plants/batch', (ctx, next) => {
    if (ctx.method === 'POST') return next();
    if (ctx.method === 'OPTIONS') {
      ctx.status = 204;
      setHeader(ctx, 'Allow', ALLOW);
      return;
    }
    sendError(ctx, methodNotAllowed(ctx.method, '/plants/batch', ALLOW));
  });

  router.post('/plants/batch', canWrite, arrayBody, async (ctx) => {
    const requests = decodeBatchBody(ctx.request.body, ctx.state.bodyProblems ?? []);
    if (E.isLeft(requests)) return sendError(ctx, requests.left);
    onArray?.(requests.right.length);
    const { idempotencyKey: key, principal } = ctx.state;
    let outcome: E.Either<IdRepeated | IdempotencyKeyReused | StoreError, KeyedBatch>;
    if (key === undefined || principal === undefined) {
      outcome = await service.createMany(requests.right)();
    } else {
      const claim = { owner: ownerOf(principal), key, request: canonicalBatchRequest(requests.right) };
      if (!keysInFlight.tryHold(claim.owner, key)) return sendError(ctx, idempotencyKeyInFlight(key));
      try {
        outcome = await service.createMany(requests.right, claim)();
      } finally {
        keysInFlight.release(claim.owner, key);
      }
    }
    if (E.isLeft(outcome)) return sendError(ctx, outcome.left);
    const { result, replayed } = outcome.right;
    if (replayed) setHeader(ctx, 'Idempotent-Replayed', 'true');
    else onCommit?.();
    if (E.isLeft(result)) return sendError(ctx, result.left);
    ctx.status = 201;
    setHeader(ctx, 'X-Change-Seq', String(result.right.changeSeq));
    sendJson(ctx, CreatePlantsResponse.encode(result.right.plants));
  });
};
