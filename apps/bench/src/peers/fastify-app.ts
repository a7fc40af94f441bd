import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { MAX_NAME_LENGTH, MAX_TAG_LENGTH } from '@plant-store/domain';
import { createBearerCheck } from '../bearer-check.js';
import {
  CURSOR,
  DEFAULT_LIMIT,
  errorBody,
  ID_SEGMENT,
  isCursor,
  LIMIT,
  MAX_BODY_BYTES,
  nextLink,
  type NewPlant,
  type Peer,
  type PeerStore,
  type PlantChanges,
  type MaybePromise,
  type PlantRecord,
} from './peer.js';

/**
 * The Fastify 5 app of the `fastify-sqlite` and `fastify-postgres` peers, written as Fastify's
 * users write one: routes with JSON schemas validated by Fastify's built-in Ajv (no coercion, no
 * silently removed members: `additionalProperties: false` answers 400), response schemas for
 * fast-json-stringify, the bearer check in an `onRequest` hook of the `/plants` routes, and one
 * error handler that turns Ajv's and Fastify's errors into the contract's `{error, message}` body
 * naming the field. No logger. As fast as Fastify's own advice makes it: the hook takes a
 * callback and the handlers answer synchronously when the store does (no promise per request;
 * the `async` form of the same app is the `fastify-sqlite-async` row, measured beside it).
 */

/**
 * The text rule of docs/reference/api.md as the served OpenAPI document spells it (packages/domain
 * openapi.ts): at least one character that is neither a control character nor whitespace, no
 * control characters. Ajv counts `minLength`/`maxLength` in code points; well-formed Unicode
 * (no lone surrogates), which a pattern cannot say, is the `well-formed` format below.
 */
const notControl = '[^\\u0000-\\u001F\\u007F]';
const notControlNorSpace =
  '[^\\u0000-\\u0020\\u007F\\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000\\uFEFF]';
export const TEXT_PATTERN = `^${notControl}*${notControlNorSpace}${notControl}*$`;
const LONE_SURROGATE = /\p{Cs}/u;

const text = (maxLength: number) =>
  ({ type: 'string', minLength: 1, maxLength, pattern: TEXT_PATTERN, format: 'well-formed' }) as const;
const plantId = { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER } as const;

const createBody = {
  type: 'object',
  properties: { name: text(MAX_NAME_LENGTH), tag: text(MAX_TAG_LENGTH), id: plantId },
  required: ['name'],
  additionalProperties: false,
} as const;

const patchBody = {
  type: 'object',
  properties: {
    name: text(MAX_NAME_LENGTH),
    tag: { anyOf: [text(MAX_TAG_LENGTH), { type: 'null' }] },
    // A plant keeps its id (the one in the path): any `id` member is refused by name.
    id: { not: {} },
  },
  additionalProperties: false,
} as const;

const idParams = {
  type: 'object',
  properties: { id: { type: 'string', pattern: ID_SEGMENT.source, format: 'plant-id' } },
  required: ['id'],
} as const;

const listQuery = {
  type: 'object',
  properties: {
    limit: { type: 'string', pattern: LIMIT.source },
    after: { type: 'string', pattern: CURSOR.source, format: 'plant-cursor' },
    tag: text(MAX_TAG_LENGTH),
  },
  additionalProperties: false,
} as const;

const plantSchema = {
  type: 'object',
  properties: { id: { type: 'integer' }, name: { type: 'string' }, tag: { type: 'string' } },
  required: ['id', 'name'],
} as const;

interface IdParams {
  readonly id: string;
}
interface ListQuery {
  readonly limit?: string;
  readonly after?: string;
  readonly tag?: string;
}

/** Ajv's words for the rules it cannot name well. */
const FORMAT_MESSAGES: Readonly<Record<string, string>> = {
  'well-formed': 'expected well-formed Unicode (no lone surrogates)',
  'plant-id': `expected an integer from 1 to ${Number.MAX_SAFE_INTEGER}`,
  'plant-cursor': `expected an integer from 0 to ${Number.MAX_SAFE_INTEGER}`,
};

/** What a failed validation says: `body.colour: unknown member`, `querystring.limit: must match pattern …`. */
const describeValidation = (error: FastifyError): string => {
  const where = error.validationContext ?? 'request';
  return (error.validation ?? [])
    .map((issue) => {
      const path = `${where}${issue.instancePath.replaceAll('/', '.')}`;
      const params = issue.params as Record<string, unknown>;
      switch (issue.keyword) {
        case 'additionalProperties':
          return `${path}.${String(params['additionalProperty'])}: unknown ${where === 'querystring' ? 'query parameter' : 'member'}`;
        case 'required':
          return `${path}.${String(params['missingProperty'])}: required`;
        case 'not':
          return `${path}: cannot be changed: a plant keeps its id (the one in the path)`;
        case 'pattern':
          if (params['pattern'] === TEXT_PATTERN)
            return `${path}: expected at least one non-whitespace character and no control characters`;
          break;
        case 'format':
          return `${path}: ${FORMAT_MESSAGES[String(params['format'])] ?? issue.message ?? 'invalid'}`;
      }
      return `${path}: ${issue.message ?? 'invalid'}`;
    })
    .join('; ');
};

/**
 * Calls `then` with the store's answer: at once when the store answered synchronously (the
 * SQLite peer: the handler sends within the request's own tick, as a synchronous Fastify handler
 * does), else once its promise settles (returned, so Fastify handles a rejection).
 */
const settle = <T>(value: MaybePromise<T>, then: (value: T) => FastifyReply): FastifyReply | Promise<FastifyReply> =>
  value instanceof Promise ? value.then(then) : then(value);

export interface FastifyAppOptions {
  /**
   * true: the bearer check is an `async` hook and every handler answers through a promise of the store's,
   * the style the peer had before issue 34; a row of its own shows what that costs.
   */
  readonly async?: boolean;
}

/** The store with every answer a promise: an async handler awaits even a synchronous store. */
const promised = (store: PeerStore): PeerStore => ({
  create: async (plant) => store.create(plant),
  get: async (id) => store.get(id),
  update: async (id, changes) => store.update(id, changes),
  remove: async (id) => store.remove(id),
  list: async (limit, after, tag) => store.list(limit, after, tag),
  close: () => store.close(),
});

export const createFastifyApp = (
  token: string,
  givenStore: PeerStore,
  options: FastifyAppOptions = {},
): FastifyInstance => {
  const store = options.async === true ? promised(givenStore) : givenStore;
  const app = Fastify({
    logger: false,
    bodyLimit: MAX_BODY_BYTES,
    ajv: {
      customOptions: {
        // Fastify's defaults coerce ("7" would pass for 7) and strip unknown members instead of
        // refusing them; the contract wants both refused.
        coerceTypes: false,
        removeAdditional: false,
        formats: {
          'well-formed': (s: string) => !LONE_SURROGATE.test(s),
          'plant-id': (s: string) => Number(s) <= Number.MAX_SAFE_INTEGER,
          'plant-cursor': isCursor,
        },
      },
    },
  });

  app.setErrorHandler((error: FastifyError, _request, reply) => {
    if (error.validation !== undefined) return reply.code(400).send(errorBody(400, describeValidation(error)));
    const status =
      error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
    return reply.code(status).send(errorBody(status, status === 500 ? 'internal error' : error.message));
  });
  app.setNotFoundHandler((_request, reply) => reply.code(404).send(errorBody(404, 'no such route')));
  // Fastify parses text/plain (and a body without Content-Type as text) by default; the contract
  // takes JSON only, else 415.
  app.removeContentTypeParser('text/plain');

  app.get('/healthz', (_request, reply) => {
    reply.send({ status: 'ok' });
  });
  app.get('/readyz', (_request, reply) => {
    reply.send({ status: 'ok' });
  });

  const checkBearer = createBearerCheck(token);
  const notFound = (reply: FastifyReply, id: number): FastifyReply =>
    reply.code(404).send(errorBody(404, `no plant with id ${id}`));

  app.register((plants, _options, registered) => {
    const deny = (request: FastifyRequest, reply: FastifyReply): boolean => {
      const denial = checkBearer(request.headers.authorization);
      if (denial === undefined) return false;
      reply
        .code(denial.status)
        .header('www-authenticate', denial.wwwAuthenticate)
        .send(errorBody(denial.status, denial.message));
      return true;
    };
    if (options.async === true) {
      plants.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
        if (deny(request, reply)) return reply;
      });
    } else {
      plants.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
        if (!deny(request, reply)) done();
      });
    }

    plants.post<{ Body: NewPlant }>(
      '/plants',
      {
        schema: {
          body: createBody,
          response: {
            201: {
              type: 'object',
              properties: { name: { type: 'string' }, tag: { type: 'string' } },
              required: ['name'],
            },
          },
        },
      },
      (request, reply) => {
        const plant = request.body;
        const created = (id: number | undefined): FastifyReply =>
          id === undefined
            ? reply.code(409).send(errorBody(409, `plant ${String(plant.id)} already exists`))
            : reply
                .code(201)
                .header('location', `/plants/${id}`)
                .send(plant.tag === undefined ? { name: plant.name } : { name: plant.name, tag: plant.tag });
        return settle(store.create(plant), created);
      },
    );

    plants.get<{ Querystring: ListQuery }>(
      '/plants',
      { schema: { querystring: listQuery, response: { 200: { type: 'array', items: plantSchema } } } },
      (request, reply) => {
        const { limit: limitText, after = '0', tag } = request.query;
        const limit = limitText === undefined ? DEFAULT_LIMIT : Number(limitText);
        return settle(store.list(limit, Number(after), tag), (page: readonly PlantRecord[]) => {
          const link = nextLink(limit, page, tag);
          if (link !== undefined) reply.header('link', link);
          return reply.send(page);
        });
      },
    );

    plants.get<{ Params: IdParams }>(
      '/plants/:id',
      { schema: { params: idParams, response: { 200: plantSchema } } },
      (request, reply) => {
        const id = Number(request.params.id);
        return settle(store.get(id), (plant) => (plant === undefined ? notFound(reply, id) : reply.send(plant)));
      },
    );

    plants.delete<{ Params: IdParams }>('/plants/:id', { schema: { params: idParams } }, (request, reply) => {
      const id = Number(request.params.id);
      return settle(store.remove(id), (removed) => (removed ? reply.code(204).send() : notFound(reply, id)));
    });

    // PATCH takes JSON Merge Patch besides application/json: the parser is added in a context of
    // its own, so that a create in that media type still gets 415.
    plants.register((patching, _patchOptions, patchRegistered) => {
      patching.addContentTypeParser(
        'application/merge-patch+json',
        { parseAs: 'string' },
        patching.getDefaultJsonParser('error', 'error'),
      );
      patching.patch<{ Params: IdParams; Body: PlantChanges }>(
        '/plants/:id',
        { schema: { params: idParams, body: patchBody, response: { 200: plantSchema } } },
        (request, reply) => {
          const id = Number(request.params.id);
          return settle(store.update(id, request.body), (plant) =>
            plant === undefined ? notFound(reply, id) : reply.send(plant),
          );
        },
      );
      patchRegistered();
    });
    registered();
  });

  return app;
};

/** The app over `store` as a Peer, ready to listen; closing it closes the store too. */
export const fastifyPeer = async (token: string, store: PeerStore, options: FastifyAppOptions = {}): Promise<Peer> => {
  const app = createFastifyApp(token, store, options);
  try {
    await app.ready();
  } catch (error) {
    await store.close();
    throw error;
  }
  return {
    listen: async (port, host) => {
      await app.listen({ port, host });
      const address = app.server.address();
      return typeof address === 'object' && address !== null ? address.port : port;
    },
    close: async () => {
      await app.close();
      await store.close();
    },
  };
};
