import type { Agent as HttpAgent } from 'node:http';
import type { Agent as HttpsAgent } from 'node:https';
import {
  CreatePlantRequest,
  CreatePlantResponse,
  DEFAULT_PAGE_LIMIT,
  formatErrors,
  IdempotencyKey,
  ListCursor,
  ListCursorFromString,
  PageLimit,
  PageLimitFromString,
  Plant,
  PlantId,
  PlantIdFromPath,
  PlantPage,
} from '@plant-store/domain';
import * as E from 'fp-ts/lib/Either.js';
import type * as t from 'io-ts';
import { UnexpectedResponseError, ValidationError } from './client-error.js';
import { decodeBody } from './decode-body.js';
import { createPlantsTaskEither, type PlantsTaskEither } from './fp.js';
import type { PlantStoreHooks } from './hooks.js';
import { findLink } from './link-header.js';
import { packageVersion } from './package-version.js';
import { uuidV7 } from './uuid-v7.js';
import { DEFAULT_RETRY, resolveRetry, type RetryOptions } from './retry.js';
import { createTransport, failureOf, type CallOptions, type Exchange, type OutgoingRequest, type TransportConfig } from './transport.js';
import { withMetadata } from './with-metadata.js';

export interface PlantStoreClientOptions {
  /** Where the server lives, e.g. `http://127.0.0.1:3000` (a path prefix such as `/api` is kept). */
  readonly baseUrl: string | URL;
  /** The bearer token (sent as `Authorization: Bearer <token>`). */
  readonly token: string;
  /** Per-attempt timeout in ms. Default 30 000. */
  readonly timeout?: number;
  /** A retry limit or retry options (see `RetryOptions`). Default: 2 retries for GET, DELETE and creates with a key. */
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

/** What `plants.create` takes. `id` is optional: the server assigns one when absent. */
export interface CreatePlantInput {
  readonly name: string;
  readonly tag?: string;
  readonly id?: number;
}

/** The options of `plants.create`: those of every call, plus the `Idempotency-Key`. */
export interface CreateOptions extends CallOptions {
  /**
   * The `Idempotency-Key` sent with the create, the same on every retry of the call. Default: a
   * fresh UUIDv7 per call (time-ordered: see uuid-v7.ts). Pass your own (1–255 characters from `A–Z a–z 0–9 . _ : ~ + / = -`)
   * to make a create safe to repeat across calls or processes: the server stores the plant at most
   * once per key and answers a repeat with the first answer. It is checked like the input
   * (`ValidationError`, nothing sent) unless the client has `validate: false`. `false` sends no
   * key: the create is then not retried (unless `retry.createWithId` and the input has an id).
   */
  readonly idempotencyKey?: string | false;
}

/**
 * What `plants.create` resolves to: the `Plant` plus `replayed`, true when the server answered
 * with the saved answer of an earlier request with the same `Idempotency-Key`
 * (`Idempotent-Replayed: true`): an earlier call with your key, or an attempt of this call whose
 * response was lost. Either way the plant was created once, by that first request.
 *
 * `replayed` is a non-enumerable own property: `plant.replayed` reads it, but `Object.keys`,
 * spreading, `JSON.stringify` and deep equality see only `{ id, name, tag? }`, exactly as before.
 */
export type CreatedPlant = Plant & { readonly replayed: boolean };

/** One page's position: at most `limit` plants with ids greater than `after` (0: from the start). */
export interface ListPlantsQuery {
  readonly limit?: number;
  readonly after?: number;
}

export interface PlantListPage {
  /** Plants in ascending id order. */
  readonly plants: readonly Plant[];
  /** The query of the next page, when the server's `Link: <…>; rel="next"` announced one. */
  readonly next?: { readonly limit: number; readonly after: number };
}

export interface PlantsApi {
  /**
   * `POST /plants`: stores a plant and returns it, its id read from `Location`. Sends an
   * `Idempotency-Key` (see `CreateOptions`), so it is retried like a GET, and also after a 409
   * that says a request with the key is still in progress; without a key it is not retried.
   */
  create(input: CreatePlantInput, options?: CreateOptions): Promise<CreatedPlant>;
  /** `DELETE /plants/{id}`: `NotFoundError` when there is no such plant. */
  delete(id: number, options?: CallOptions): Promise<void>;
  /** `GET /plants/{id}`: `NotFoundError` when there is no such plant. */
  get(id: number, options?: CallOptions): Promise<Plant>;
  /** `GET /plants?limit&after`: one page. */
  list(query?: ListPlantsQuery, options?: CallOptions): Promise<PlantListPage>;
  /** Every plant in ascending id order, fetching page after page as the `Link` headers lead. */
  all(query?: { readonly limit?: number }, options?: CallOptions): AsyncIterable<Plant>;
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
  const unexpected = (problem: string) => new UnexpectedResponseError([problem], { ...exchange.details, status: exchange.status });
  const location = exchange.headers.location;
  if (location === undefined || location === '') throw unexpected('the 201 response has no Location header');
  let target: URL;
  try {
    target = new URL(location, exchange.url);
  } catch {
    throw unexpected(`the Location header ${JSON.stringify(location)} is not a URL`);
  }
  const plants = new URL('plants/', exchange.url);
  const segment = target.pathname.startsWith(plants.pathname) ? target.pathname.slice(plants.pathname.length) : undefined;
  const id = segment === undefined ? undefined : PlantIdFromPath.decode(segment);
  if (id === undefined || E.isLeft(id) || target.origin !== plants.origin) {
    throw unexpected(`the Location header ${JSON.stringify(location)} is not /plants/{id}`);
  }
  return id.right;
};

const nextPage = (exchange: Exchange, limit: number): PlantListPage['next'] => {
  const link = findLink(exchange.headers.link, 'next', exchange.url);
  if (link === undefined) return undefined;
  const unexpected = (problem: string) => new UnexpectedResponseError([problem], { ...exchange.details, status: exchange.status });
  const rawLimit = link.searchParams.get('limit');
  const nextLimit = rawLimit === null ? E.right(limit) : PageLimitFromString.decode(rawLimit);
  const after = ListCursorFromString.decode(link.searchParams.get('after') ?? undefined);
  if (E.isLeft(nextLimit) || E.isLeft(after)) {
    throw unexpected(`the Link rel="next" target ${link.pathname}${link.search} has no valid limit and after`);
  }
  return { limit: nextLimit.right, after: after.right };
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
  if (!Number.isFinite(timeout) || timeout <= 0) throw new TypeError(`timeout must be a positive number of ms, got ${timeout}`);
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
  const { send } = createTransport(config);
  const idempotent: OutgoingRequest['retryable'] = () => true;
  const pathId = (id: number): string => (validate ? String(checkInput(PlantId, id, 'id')) : encodeURIComponent(String(id)));

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
    const plant: Plant = created.tag === undefined ? { id, name: created.name } : { id, name: created.name, tag: created.tag };
    return withMetadata(plant, { replayed: exchange.replayed });
  };

  const remove = async (id: number, options?: CallOptions): Promise<void> => {
    const exchange = await send({ method: 'DELETE', path: `plants/${pathId(id)}`, retryable: idempotent }, options);
    expectStatus(exchange, 204, 200);
  };

  const get = async (id: number, options?: CallOptions): Promise<Plant> => {
    const exchange = await send({ method: 'GET', path: `plants/${pathId(id)}`, retryable: idempotent }, options);
    expectStatus(exchange, 200);
    return decodeOrThrow(Plant, exchange);
  };

  const list = async (query: ListPlantsQuery = {}, options?: CallOptions): Promise<PlantListPage> => {
    const params: Record<string, string> = {};
    if (query.limit !== undefined) params['limit'] = String(validate ? checkInput(PageLimit, query.limit, 'limit') : query.limit);
    if (query.after !== undefined) params['after'] = String(validate ? checkInput(ListCursor, query.after, 'after') : query.after);
    const exchange = await send({ method: 'GET', path: 'plants', query: params, retryable: idempotent }, options);
    expectStatus(exchange, 200);
    const plants = decodeOrThrow(PlantPage, exchange);
    const next = nextPage(exchange, query.limit ?? DEFAULT_PAGE_LIMIT);
    return next === undefined ? { plants } : { plants, next };
  };

  async function* all(query: { readonly limit?: number } = {}, options?: CallOptions): AsyncGenerator<Plant, void, undefined> {
    let page = await list(query.limit === undefined ? {} : { limit: query.limit }, options);
    let after = 0;
    for (;;) {
      yield* page.plants;
      if (page.next === undefined) return;
      if (page.next.after <= after) {
        throw new UnexpectedResponseError([`the Link rel="next" does not advance (after=${page.next.after} again)`]);
      }
      after = page.next.after;
      page = await list(page.next, options);
    }
  }

  const plants: PlantsApi = { create, delete: remove, get, list, all };
  return { plants, fp: { plants: createPlantsTaskEither(plants) } };
}
