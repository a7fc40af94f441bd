import { components } from './openapi-components.js';
import { docsPath, documentPath, livenessPath, readinessPath } from './openapi-health.js';
import { prose, withSecurityHeaders } from './openapi-parts.js';
import { plantPath } from './openapi-plant.js';
import { plantsPath } from './openapi-plants.js';
import { changesPath } from './openapi-changes.js';
import { batchPath } from './openapi-batch.js';
import { webhooks, webhookTag } from './openapi-webhooks.js';

export { TEXT_PATTERN } from './openapi-components.js';
export { ENTITY_TAG_LIST_PATTERN } from './openapi-plant.js';

/** What the served document states about the deployment (docs/reference/api.md). */
export interface OpenApiSettings {
  /** IDEMPOTENCY_TTL_SECONDS in force; default 86400. */
  readonly idempotencyTtlSeconds?: number;
}

export const DEFAULT_IDEMPOTENCY_TTL_SECONDS = 86_400;

/**
 * The OpenAPI 3.1 document of the whole API (docs/reference/api.md, docs/reference/webhooks.md),
 * served at `GET /openapi.json`, with the deployment's settings stated where they apply.
 */
export const createOpenApiDocument = ({
  idempotencyTtlSeconds = DEFAULT_IDEMPOTENCY_TTL_SECONDS,
}: OpenApiSettings = {}) =>
  ({
    openapi: '3.1.0',
    info: {
      title: 'Plant Store',
      version: '1.0.0',
      description: prose(
        'A store of plants: create, read, change, replace, list (all, or by tag) and delete, with bearer tokens',
        '(RFC 6750).',
        'Changes can be made safe from lost updates with ETags and `If-Match` (RFC 9110 §13).',
        'Every error has the body `{"error": <status>, "message": <text>}` and `Content-Type: application/json`,',
        'including the errors Node answers before the app runs (400 malformed request, 408 request timeout,',
        '417 an `Expect` other than `100-continue`, 431 headers too large).',
        'A malformed request head is 400 on every path, before authentication:',
        'an HTTP/1.1 request without `Host` or with more than one, or a request target with a `#` fragment.',
        "Every response carries `X-Request-Id`: the caller's if it matches `[A-Za-z0-9._:-]{1,128}`, else a new one.",
        'A 201, a `PATCH` or `PUT` 200 or a 204 is sent only after the change is committed, and says where the',
        'change stands in the change log (`X-Change-Seq`).',
        'Unknown routes → 404; a method a route does not have → 405 with `Allow`, answered before authentication.',
        '`OPTIONS` on a known path → 204 with `Allow` (no authentication); `HEAD` is answered wherever `GET` is,',
        'with the same status and headers and no body.',
        'Request bodies are never accepted compressed (`Content-Encoding` other than `identity` → 415).',
        'A `Transfer-Encoding` that ends in `chunked` but names another coding too (`gzip, chunked`,',
        'on one line or two) → 501 (RFC 9112 §6.1); one that does not end in `chunked`, or repeats it,',
        '→ 400 and the connection closes (§6.3). Messages name routes as this document does (`/plants/{id}`).',
        'Every answer carries `X-Content-Type-Options: nosniff` and',
        "`Content-Security-Policy: default-src 'none'; frame-ancestors 'none'`;",
        'every answer under `/plants` also `Cache-Control: no-store`.',
        'CORS is off unless the operator sets `CORS_ORIGINS`: then a request whose `Origin` is one of those exact',
        'origins gets `Access-Control-Allow-Origin` (and `Vary: Origin`) on every answer, errors included, with',
        '`Access-Control-Expose-Headers: Location, Link, ETag, X-Request-Id, Retry-After, Idempotent-Replayed,',
        'RateLimit-Policy, RateLimit`;',
        'its preflight (`OPTIONS` with `Access-Control-Request-Method`) is answered 204 before authentication with',
        '`Access-Control-Allow-Methods: GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS`,',
        '`Access-Control-Allow-Headers: Authorization, Content-Type, Idempotency-Key, If-Match, If-None-Match` and',
        '`Access-Control-Max-Age: 600`; no credentials mode. Any other origin gets no CORS header.',
      ),
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: '/' }],
    security: [{ bearer: [] }],
    tags: [
      { name: 'plants' },
      { name: 'health', description: 'No authentication: the document, its web page, liveness and readiness.' },
      webhookTag,
    ],
    paths: withSecurityHeaders({
      '/plants': plantsPath(idempotencyTtlSeconds),
      '/plants/changes': changesPath,
      '/plants/batch': batchPath(idempotencyTtlSeconds),
      '/plants/{id}': plantPath,
      '/openapi.json': documentPath,
      '/docs': docsPath,
      '/healthz': livenessPath,
      '/readyz': readinessPath,
    }),
    /** What this server POSTs to registered endpoints: one entry per event type (openapi-webhooks.ts). */
    webhooks,
    components,
  }) as const;

/** The document with the default settings. */
export const openApiDocument = createOpenApiDocument();
