import type { Agent as HttpAgent } from 'node:http';
import type { Agent as HttpsAgent } from 'node:https';
import {
  CreatePlantRequest,
  CreatePlantResponse,
  formatErrors,
  IdempotencyKey,
  Plant,
  PlantId,
  PlantIdFromPath,
  PlantPage,
  ReplacePlantRequest,
  UpdatePlantRequest,
  type PlantSort,
} from '@plant-store/domain';
import * as E from 'fp-ts/lib/Either.js';
import type * as t from 'io-ts';
import { createChangeFeed } from './change-feed.js';
import { createManyWith } from './create-many.js';
import { UnexpectedResponseError, ValidationError } from './client-error.js';
import { decodeBody } from './decode-body.js';
import { ETagCondition } from './etag.js';
import { createPlantsTaskEither, type PlantsTaskEither } from './fp.js';
import type { PlantStoreHooks } from './hooks.js';
import { advanceProblem, changeSeqOf, listParams, nextPage, totalCount } from './list-page.js';
import { packageVersion } from './package-version.js';
import type {
  AllPlantsQuery,
  CountedPlantListPage,
  CreatedPlant,
  CreateOptions,
  CreatePlantInput,
  DeleteOptions,
  FetchedPlant,
  GetOptions,
  IdSort,
  ListOptions,
  ListPlantsQuery,
  NextPageQuery,
  NotModified,
  PlantListPage,
  PlantsApi,
  PutOptions,
  PutPlant,
  PutPlantInput,
  UpdatedPlant,
  UpdateOptions,
  UpdatePlantInput,
} from './plants-api.js';
import { startMirror } from './plant-mirror.js';
import { createPipeline } from './request-pipeline.js';
import { uuidV7 } from './uuid-v7.js';
import { DEFAULT_RETRY, resolveRetry, type RetryOptions } from './retry.js';
import {
  createTransport,
  failureOf,
  type CallOptions,
  type Exchange,
  type OutgoingRequest,
  type TransportConfig,
} from './transport.js';
import { withMetadata } from './with-metadata.js';

export interface PlantStoreClientOptions {
  /** Where the server lives, e.g. `http://127.0.0.1:3000` (a path prefix such as `/api` is kept). */
  readonly baseUrl: string | URL;
  /** The bearer token (sent as `Authorization: Bearer <token>`). */
  readonly token: string;
  /** Per-attempt timeout in ms. Default 30 000. */
  readonly timeout?: number;
  /** A retry limit or retry options (see `RetryOptions`). Default: 2 retries for GET, PATCH, DELETE and creates with a key. */
  readonly retry?: number | RetryOptions;
  readonly hooks?: PlantStoreHooks;
  /** An `http.Agent` (or `https.Agent` for an https base URL), e.g. for keep-alive or proxies. */
  readonly agent?: HttpAgent | HttpsAgent;
  /** Aborts every call of this client (e.g. on shutdown). */
  readonly signal?: AbortSignal;
  /** The `User-Agent` header. Default `@plant-store/client/<version>`. */
  readonly userAgent?: string;
  /**
   * Check input with the domain codecs before sending (default true): invalid input rejects with
   * `ValidationError` and no request is made. `false` sends input as given and leaves every check
   * to the server (which stays the authority either way).
   */
  readonly validate?: boolean;
}

export interface PlantStoreClient {
  readonly plants: PlantsApi;
  /** The same operations as `TaskEither<PlantStoreError, A>`, for fp-ts users. */
  readonly fp: { readonly plants: PlantsTaskEither };
}

const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

const checkInput = <A>(codec: t.Type<A, unknown, unknown>, value: unknown, root?: string): A => {
  const decoded = codec.decode(value);
  if (E.isLeft(decoded)) throw new ValidationError(formatErrors(decoded.left, root));
  return decoded.right;
};

const decodeOrThrow = <A, O>(codec: t.Type<A, O, unknown>, exchange: Exchange): A => {
  const decoded = decodeBody(codec)(exchange.body);
  if (E.isLeft(decoded)) throw new UnexpectedResponseError(decoded.left, exchange.details);
  return decoded.right;
};

const expectStatus = (exchange: Exchange, ...expected: readonly number[]): void => {
  if (expected.includes(exchange.status)) return;
  if (exchange.status >= 200 && exchange.status <= 299) {
    throw new UnexpectedResponseError([`expected HTTP ${expected.join(' or ')}, got ${exchange.status}`], {
      ...exchange.details,
      status: exchange.status,
    });
  }
  throw failureOf(exchange);
};

const idFromLocation = (exchange: Exchange): PlantId => {
  const unexpected = (problem: string) =>
    new UnexpectedResponseError([problem], { ...exchange.details, status: exchange.status });
  const location = exchange.headers.location;
  if (location === undefined || location === '') throw unexpected('the 201 response has no Location header');
  let target: URL;
  try {
    target = new URL(location, exchange.url);
  } catch {
    throw unexpected(`the Location header ${JSON.stringify(location)} is not a URL`);
  }
  const plants = new URL('plants/', exchange.url);
  const segment = target.pathname.startsWith(plants.pathname)
    ? target.pathname.slice(plants.pathname.length)
    : undefined;
  const id = segment === undefined ? undefined : PlantIdFromPath.decode(segment);
  if (id === undefined || E.isLeft(id) || target.origin !== plants.origin) {
    throw unexpected(`the Location header ${JSON.stringify(location)} is not /plants/{id}`);
  }
  return id.right;
};

/** Checks that a 201's `Location` names the request's own path (a PUT that created the plant). */
const locationOfRequest = (exchange: Exchange): void => {
  const location = exchange.headers.location;
  let target: URL | undefined;
  try {
    target = location === undefined || location === '' ? undefined : new URL(location, exchange.url);
  } catch {
    target = undefined;
  }
  if (target?.origin === exchange.url.origin && target.pathname === exchange.url.pathname) return;
  throw new UnexpectedResponseError(
    [`the Location header ${JSON.stringify(location ?? '')} is not ${exchange.url.pathname}, the plant put`],
    { ...exchange.details, status: exchange.status },
  );
};

/** An `ETag` the contract requires on this response (a PATCH 200, a 304). */
const requiredETag = (exchange: Exchange): string => {
  if (exchange.etag !== undefined) return exchange.etag;
  throw new UnexpectedResponseError([`the ${exchange.status} response has no ETag header`], {
    ...exchange.details,
    status: exchange.status,
  });
};

/**
 * Creates a client for the Plant Store HTTP API. A bad option (empty base URL or token, a
 * negative timeout) throws a `TypeError` right here; calls reject with `PlantStoreError`s.
 */
export const createPlantStoreClient = (options: PlantStoreClientOptions): PlantStoreClient => {
  const baseUrl = new URL(options.baseUrl);
  if (baseUrl.protocol !== 'http:' && baseUrl.protocol !== 'https:') {
    throw new TypeError(`baseUrl must be an http: or https: URL, got ${baseUrl.protocol}`);
  }
  if (!baseUrl.pathname.endsWith('/')) baseUrl.pathname += '/';
  baseUrl.search = '';
  baseUrl.hash = '';
  if (typeof options.token !== 'string' || !B64TOKEN.test(options.token)) {
    throw new TypeError('token must be a non-empty bearer token (letters, digits and -._~+/ then optional =)');
  }
  const timeout = options.timeout ?? 30_000;
  if (!Number.isFinite(timeout) || timeout <= 0)
    throw new TypeError(`timeout must be a positive number of ms, got ${timeout}`);
  const config: TransportConfig = {
    baseUrl,
    token: options.token,
    timeout,
    retry: resolveRetry(DEFAULT_RETRY, options.retry),
    hooks: options.hooks ?? {},
    agent: options.agent,
    signal: options.signal,
    userAgent: options.userAgent ?? `@plant-store/client/${packageVersion()}`,
  };
  return createClientWith(config, options.validate ?? true);
};

/** The client over a resolved transport configuration. */
function createClientWith(config: TransportConfig, validate: boolean): PlantStoreClient {
  // One pipeline for the plant calls and the change feed: the same headers, hooks, aborts and got instance.
  const pipeline = createPipeline(config);
  const { send } = createTransport(config, pipeline);
  const idempotent: OutgoingRequest['retryable'] = () => true;
  const pathId = (id: number): string =>
    validate ? String(checkInput(PlantId, id, 'id')) : encodeURIComponent(String(id));
  const condition = (value: string | undefined, name: string): string | undefined =>
    value === undefined || !validate ? value : checkInput(ETagCondition, value, name);

  const idempotencyKeyOf = (option: string | false | undefined): string | undefined => {
    if (option === false) return undefined;
    if (option === undefined) return uuidV7();
    return validate ? checkInput(IdempotencyKey, option, 'idempotencyKey') : option;
  };

  const create = async (input: CreatePlantInput, options?: CreateOptions): Promise<CreatedPlant> => {
    const body = validate ? CreatePlantRequest.encode(checkInput(CreatePlantRequest, input)) : input;
    const hasId = (body as { id?: unknown }).id !== undefined;
    const idempotencyKey = idempotencyKeyOf(options?.idempotencyKey);
    const exchange = await send(
      {
        method: 'POST',
        path: 'plants',
        body: JSON.stringify(body),
        ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
        retryable: (policy) => idempotencyKey !== undefined || (policy.createWithId && hasId),
      },
      options,
    );
    expectStatus(exchange, 201);
    const id = idFromLocation(exchange);
    const created = decodeOrThrow(CreatePlantResponse, exchange);
    // The 201's members as the codec decoded them, the id from Location first: the order of Plant.
    const plant: Plant = { id, ...created };
    return withMetadata(plant, { replayed: exchange.replayed, etag: exchange.etag, changeSeq: changeSeqOf(exchange) });
  };

  const remove = async (id: number, options?: DeleteOptions): Promise<void> => {
    const path = `plants/${pathId(id)}`;
    const ifMatch = condition(options?.ifMatch, 'ifMatch');
    const exchange = await send({ method: 'DELETE', path, conditions: { ifMatch }, retryable: idempotent }, options);
    expectStatus(exchange, 204, 200);
  };

  async function get(id: number, options?: CallOptions & { readonly ifNoneMatch?: undefined }): Promise<FetchedPlant>;
  async function get(id: number, options: GetOptions): Promise<FetchedPlant | NotModified>;
  async function get(id: number, options?: GetOptions): Promise<FetchedPlant | NotModified> {
    const path = `plants/${pathId(id)}`;
    const ifNoneMatch = condition(options?.ifNoneMatch, 'ifNoneMatch');
    const exchange = await send({ method: 'GET', path, conditions: { ifNoneMatch }, retryable: idempotent }, options);
    if (ifNoneMatch !== undefined && exchange.status === 304)
      return { notModified: true, etag: requiredETag(exchange) };
    expectStatus(exchange, 200);
    return withMetadata(decodeOrThrow(Plant, exchange), { etag: exchange.etag, notModified: false as const });
  }

  const update = async (id: number, patch: UpdatePlantInput, options?: UpdateOptions): Promise<UpdatedPlant> => {
    const path = `plants/${pathId(id)}`;
    const body = validate ? UpdatePlantRequest.encode(checkInput(UpdatePlantRequest, patch)) : patch;
    const ifMatch = condition(options?.ifMatch, 'ifMatch');
    const exchange = await send(
      {
        method: 'PATCH',
        path,
        body: JSON.stringify(body),
        contentType: 'application/merge-patch+json',
        conditions: { ifMatch },
        // A merge patch is idempotent: applying it again gives the same plant. See UpdateOptions.ifMatch for the 412 a retry can meet.
        retryable: idempotent,
      },
      options,
    );
    expectStatus(exchange, 200);
    const plant = decodeOrThrow(Plant, exchange);
    return withMetadata(plant, { etag: requiredETag(exchange), changeSeq: changeSeqOf(exchange) });
  };

  const put = async (id: number, input: PutPlantInput, options?: PutOptions): Promise<PutPlant> => {
    const path = `plants/${pathId(id)}`;
    const body = validate ? ReplacePlantRequest.encode(checkInput(ReplacePlantRequest, input)) : input;
    const ifMatch = condition(options?.ifMatch, 'ifMatch');
    const ifNoneMatch = condition(options?.ifNoneMatch, 'ifNoneMatch');
    const exchange = await send(
      {
        method: 'PUT',
        path,
        body: JSON.stringify(body),
        conditions: { ifMatch, ifNoneMatch },
        // The same whole plant sent twice leaves the same plant. See PutOptions.ifNoneMatch for what a retry can meet.
        retryable: idempotent,
      },
      options,
    );
    expectStatus(exchange, 200, 201);
    const plant = decodeOrThrow(Plant, exchange);
    const created = exchange.status === 201;
    // A 201 names the plant it made: the one of the request's path, nothing else.
    if (created) locationOfRequest(exchange);
    return withMetadata(plant, { etag: requiredETag(exchange), created, changeSeq: changeSeqOf(exchange) });
  };

  const listPage = async (
    query: ListPlantsQuery<PlantSort>,
    options: ListOptions = {},
  ): Promise<PlantListPage<PlantSort> & { readonly total?: number }> => {
    const params = listParams(query, validate);
    const { count, ...call } = options;
    const exchange = await send(
      {
        method: 'GET',
        path: 'plants',
        query: params,
        ...(count === true ? { prefer: 'count=exact' } : {}),
        retryable: idempotent,
      },
      call,
    );
    expectStatus(exchange, 200);
    const plants = decodeOrThrow(PlantPage, exchange);
    const next = nextPage(exchange, params);
    const page = next === undefined ? { plants } : { plants, next };
    const counted = count === true ? { ...page, total: totalCount(exchange) } : page;
    return withMetadata(counted, { changeSeq: changeSeqOf(exchange) });
  };

  function list<S extends PlantSort = IdSort>(
    query?: ListPlantsQuery<S>,
    options?: ListOptions & { readonly count?: false },
  ): Promise<PlantListPage<S>>;
  function list<S extends PlantSort = IdSort>(
    query: ListPlantsQuery<S> | undefined,
    options: ListOptions & { readonly count: true },
  ): Promise<CountedPlantListPage<S>>;
  function list<S extends PlantSort = IdSort>(
    query?: ListPlantsQuery<S>,
    options?: ListOptions,
  ): Promise<PlantListPage<S> & { readonly total?: number }>;
  function list(
    query: ListPlantsQuery<PlantSort> = {},
    options?: ListOptions,
  ): Promise<PlantListPage<PlantSort> & { readonly total?: number }> {
    return listPage(query, options);
  }

  async function* all(query: AllPlantsQuery = {}, options?: CallOptions): AsyncGenerator<Plant, void, undefined> {
    const { limit, tag, q, sort } = query;
    let page = await listPage(
      {
        ...(limit === undefined ? {} : { limit }),
        ...(sort === undefined ? {} : { sort }),
        ...(q === undefined ? {} : { q }),
        ...(tag === undefined ? {} : { tag }),
      },
      options,
    );
    let previous: NextPageQuery<PlantSort> | undefined;
    for (;;) {
      yield* page.plants;
      const next = page.next;
      if (next === undefined) return;
      const stuck = advanceProblem(previous, next);
      if (stuck !== undefined) throw new UnexpectedResponseError([`the Link rel="next" does not advance (${stuck})`]);
      previous = next;
      page = await listPage(next, options);
    }
  }

  const { changes, items } = createChangeFeed(config, pipeline);
  const plants: PlantsApi = {
    create,
    createMany: createManyWith(send, validate, idempotencyKeyOf),
    delete: remove,
    get,
    update,
    put,
    list,
    all,
    changes,
    mirror: (options) => startMirror({ list, items }, options),
  };
  return { plants, fp: { plants: createPlantsTaskEither(plants) } };
}
