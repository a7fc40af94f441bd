/** The paths that need no authentication: the document, its web page, liveness and readiness. */
import { common, error, headOf, ok, optionsOf, prose } from './openapi-parts.js';

const getOpenApiDocument = {
  tags: ['health'],
  operationId: 'getOpenApiDocument',
  summary: 'This document',
  security: [],
  responses: {
    '200': ok('The OpenAPI 3.1 document.', { content: { 'application/json': { schema: { type: 'object' } } } }),
    '405': common['405'],
  },
} as const;

const getDocs = {
  tags: ['health'],
  operationId: 'getDocs',
  summary: 'This reference, as a web page',
  description: prose(
    'Swagger UI rendering `/openapi.json`, served with its script, style sheet and icon (`/docs/init.js`,',
    '`/docs/swagger-ui-bundle.js`, `/docs/swagger-ui.css`, `/docs/favicon-32x32.png`) from this server alone:',
    'it works offline, and its `Content-Security-Policy` allows nothing from elsewhere.',
  ),
  security: [],
  responses: {
    '200': ok('The page.', {
      headers: {
        'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' },
        'Content-Security-Policy': {
          description: 'Scripts, styles, images and fetches from this origin only; never framed.',
          required: true,
          schema: { type: 'string', pattern: "^default-src 'none'; " },
        },
      },
      content: { 'text/html': { schema: { type: 'string' } } },
    }),
    '405': common['405'],
  },
} as const;

const getLiveness = {
  tags: ['health'],
  operationId: 'getLiveness',
  summary: 'Liveness: the process answers',
  security: [],
  responses: {
    '200': ok('Alive.', {
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Health' }, example: { status: 'ok' } } },
    }),
    '405': common['405'],
  },
} as const;

const getReadiness = {
  tags: ['health'],
  operationId: 'getReadiness',
  summary: 'Readiness: the store answers and the server is not shutting down',
  security: [],
  responses: {
    '200': ok('Ready.', {
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Health' }, example: { status: 'ok' } } },
    }),
    '503': error(503, 'The store does not answer, or the server is shutting down.', 'not ready: shutting down'),
    '405': common['405'],
  },
} as const;

/** `/openapi.json`: this document. */
export const documentPath = {
  get: getOpenApiDocument,
  head: headOf(getOpenApiDocument, 'headOpenApiDocument'),
  options: optionsOf('GET, HEAD, OPTIONS', 'optionsOpenApiDocument', 'health'),
} as const;

/** `/docs`: the document as a web page. */
export const docsPath = {
  get: getDocs,
  head: headOf(getDocs, 'headDocs'),
  options: optionsOf('GET, HEAD, OPTIONS', 'optionsDocs', 'health'),
} as const;

/** `/healthz`: liveness. */
export const livenessPath = {
  get: getLiveness,
  head: headOf(getLiveness, 'headLiveness'),
  options: optionsOf('GET, HEAD, OPTIONS', 'optionsLiveness', 'health'),
} as const;

/** `/readyz`: readiness. */
export const readinessPath = {
  get: getReadiness,
  head: headOf(getReadiness, 'headReadiness'),
  options: optionsOf('GET, HEAD, OPTIONS', 'optionsReadiness', 'health'),
} as const;
