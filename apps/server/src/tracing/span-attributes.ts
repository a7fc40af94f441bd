import { SpanStatusCode, type Attributes, type Span } from '@opentelemetry/api';
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_REQUEST_METHOD_ORIGINAL,
  ATTR_HTTP_REQUEST_RESEND_COUNT,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  ATTR_URL_PATH,
  ATTR_URL_SCHEME,
  ATTR_USER_AGENT_ORIGINAL,
} from '@opentelemetry/semantic-conventions';
import type { AttemptEnd, FinishedRequest, IncomingRequest, WebhookAttempt } from './tracing.js';

// What the spans say, in OpenTelemetry's semantic conventions: the SERVER span of a request, the
// CLIENT span of a webhook attempt, and the error type of a failed one.

const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE', 'PATCH']);

interface HostAndPort {
  readonly address: string;
  readonly port: number;
}

/** `host[:port]` of a Host header; the port is the scheme's when absent. */
const parseHost = (host: string): HostAndPort | undefined => {
  const m = /^(\[[^\]]*\]|[^:]*)(?::([0-9]{1,5}))?$/.exec(host);
  if (m === null || m[1] === undefined || m[1] === '') return undefined;
  return { address: m[1].replace(/^\[|\]$/g, ''), port: m[2] === undefined ? 80 : Number(m[2]) };
};

/** parseHost, remembering the last header: a server's requests nearly all name the same host. */
const lastHost = (): ((host: string) => HostAndPort | undefined) => {
  let header: string | undefined;
  let parsed: HostAndPort | undefined;
  return (host) => {
    if (host !== header) {
      header = host;
      parsed = parseHost(host);
    }
    return parsed;
  };
};

/** A request's SERVER span before its answer: its name, and the attributes known at its start. */
export interface RequestSpanStart {
  /** The method, or `HTTP` for one outside HTTP's own; describeAnswer adds the route. */
  readonly name: string;
  readonly attributes: Attributes;
}

/**
 * The start of each request's span, with the last Host header's parse remembered. An unknown
 * method is `_OTHER` in `http.request.method`, itself in `http.request.method_original`.
 */
export const requestSpanStarts = (): ((request: IncomingRequest) => RequestSpanStart) => {
  const hostAndPort = lastHost();
  return (request) => {
    const known = KNOWN_METHODS.has(request.method);
    const method = known ? request.method : '_OTHER';
    const where = request.host === undefined ? undefined : hostAndPort(request.host);
    const attributes: Attributes = {
      [ATTR_HTTP_REQUEST_METHOD]: method,
      [ATTR_URL_PATH]: request.path,
      [ATTR_URL_SCHEME]: 'http',
    };
    if (!known) attributes[ATTR_HTTP_REQUEST_METHOD_ORIGINAL] = request.method;
    if (where !== undefined) {
      attributes[ATTR_SERVER_ADDRESS] = where.address;
      attributes[ATTR_SERVER_PORT] = where.port;
    }
    if (request.userAgent !== undefined) attributes[ATTR_USER_AGENT_ORIGINAL] = request.userAgent;
    return { name: known ? method : 'HTTP', attributes };
  };
};

/** The answer on a recorded SERVER span: route, status, and what the contract wants seen (replay, 412, 429). */
export const describeAnswer = (span: Span, method: string, finished: FinishedRequest): void => {
  const { route, status, errorTag, replayed } = finished;
  if (route !== undefined) {
    span.updateName(`${method} ${route}`);
    span.setAttribute(ATTR_HTTP_ROUTE, route);
  }
  span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
  if (status >= 500) {
    span.setStatus({ code: SpanStatusCode.ERROR });
    span.setAttribute(ATTR_ERROR_TYPE, String(status));
  }
  if (errorTag !== undefined) span.setAttribute('plant_store.error', errorTag);
  if (replayed) {
    span.setAttribute('plant_store.idempotent_replay', true);
    span.addEvent('idempotent replay');
  }
  if (status === 412) span.addEvent('precondition failed');
  if (status === 429) span.addEvent('rate limited');
};

/** A webhook attempt's CLIENT span attributes. Never url.full: a webhook URL may carry a secret in its path or query. */
export const webhookAttemptAttributes = (attempt: WebhookAttempt): Attributes => {
  const { url } = attempt;
  const scheme = url.protocol.slice(0, -1);
  const attributes: Attributes = {
    [ATTR_HTTP_REQUEST_METHOD]: 'POST',
    [ATTR_SERVER_ADDRESS]: url.hostname.replace(/^\[|\]$/g, ''),
    [ATTR_SERVER_PORT]: url.port === '' ? (scheme === 'https' ? 443 : 80) : Number(url.port),
    [ATTR_URL_SCHEME]: scheme,
    'plant_store.webhook.endpoint_id': attempt.endpointId,
    'plant_store.webhook.delivery_id': attempt.deliveryId,
    'plant_store.webhook.event_id': attempt.eventId,
  };
  if (attempt.attempt > 1) attributes[ATTR_HTTP_REQUEST_RESEND_COUNT] = attempt.attempt - 1;
  return attributes;
};

/** The end of a webhook attempt's span: the answer's status, or why there was none. */
export const describeAttemptEnd = (span: Span, { status, error }: AttemptEnd): void => {
  if (status !== undefined) span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
  if (status !== undefined && status >= 400) {
    span.setStatus({ code: SpanStatusCode.ERROR });
    span.setAttribute(ATTR_ERROR_TYPE, String(status));
  } else if (status === undefined && error !== undefined) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: error });
    span.setAttribute(ATTR_ERROR_TYPE, '_OTHER');
  }
};

/** What an error is, by type only: a tag, a code or a class name — never a message that may quote a value. */
const errorType = (failure: unknown): string => {
  if (typeof failure === 'object' && failure !== null) {
    const tagged = failure as { _tag?: unknown; code?: unknown; name?: unknown };
    if (typeof tagged._tag === 'string') return tagged._tag;
    if (typeof tagged.code === 'string') return tagged.code;
    if (typeof tagged.name === 'string') return tagged.name;
  }
  return '_OTHER';
};

/** Marks a span failed, with the failure's type. */
export const fail = (span: Span, failure: unknown): void => {
  span.setStatus({ code: SpanStatusCode.ERROR });
  span.setAttribute(ATTR_ERROR_TYPE, errorType(failure));
};
