import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Duplex } from 'node:stream';
import { readFileSync } from 'node:fs';
import type { Logger } from '../logger.js';
import {
  expectationFailed,
  headersTooLarge,
  malformedRequest,
  requestTimeout,
  type RequestError,
} from './request-error.js';
import { timedOutSockets } from './timed-out.js';
import { chooseRequestId } from './request-id.js';
import { isPlantsTarget, NO_STORE, SECURITY_HEADERS } from './security-headers.js';
import { toHttpError } from './to-http-error.js';
import { SERVER_TIMEOUTS } from '../config/server-timeouts.js';

/**
 * The security headers of an answer Node's parser made us write by hand. Its target may be
 * unreadable, so `Cache-Control: no-store` goes on every such answer, /plants or not.
 */
const rawSecurityHeaders = [...Object.entries(SECURITY_HEADERS), ...Object.entries(NO_STORE)]
  .map(([name, value]) => `${name}: ${value}\r\n`)
  .join('');

export type ServerTimeouts = { -readonly [K in keyof typeof SERVER_TIMEOUTS]: number };

const errorFor = (code: unknown): RequestError => {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return headersTooLarge;
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return requestTimeout;
    case 'HPE_INVALID_TRANSFER_ENCODING':
      // RFC 9112 §6.3: the body's length cannot be known, so the connection closes after the 400.
      return malformedRequest('Transfer-Encoding must end in chunked and name it once');
    default:
      return malformedRequest('malformed HTTP request');
  }
};

/** What this file reads of a ServerResponse still on a socket (Node's internal `_httpMessage`). */
interface PendingResponse {
  readonly headersSent?: boolean;
  readonly writableFinished?: boolean;
  /** Its request: `complete` once its body was received whole. */
  readonly req?: { readonly complete?: boolean } | null;
  getHeader?(name: string): unknown;
  once?(event: 'finish' | 'close', listener: () => void): unknown;
}

interface ClientErrorSocket extends Duplex {
  /** The oldest response not yet written out on this socket, if any (Node's internal field). */
  readonly _httpMessage?: PendingResponse | null;
}

/**
 * Answers the errors Node's HTTP parser meets outside the app (malformed request line → 400,
 * headers too large → 431, request timeout → 408) with the contract's JSON body, then closes the
 * connection. The raw packet (it may hold a token) is never logged.
 *
 * The response on the socket, if any, is the failing request's own only while that request is
 * still being received (a body cut by requestTimeout): the answer then carries the id of its log
 * line. Otherwise it belongs to an EARLIER request pipelined on the same connection, whose answer
 * is still to be written (held until the turn's reads are over, or waiting for its commit): it
 * goes out first, then the error with a fresh id. Writing the error at once would end the socket
 * under it, and the client would take the error for the earlier request's answer.
 */
export const answerClientError = (logger: Logger) => {
  const answer = (err: Error & { code?: unknown }, socket: ClientErrorSocket): void => {
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const response = socket._httpMessage ?? undefined;
    const own = response !== undefined && response.req?.complete === false;
    if (response !== undefined && !own && response.writableFinished !== true) {
      // Node hands the socket to the next queued response after this one finishes: look again then.
      let waited = false;
      const again = (): void => {
        if (waited) return;
        waited = true;
        setImmediate(() => answer(err, socket));
      };
      response.once?.('finish', again);
      response.once?.('close', again);
      return;
    }
    if (own && response.headersSent === true) {
      socket.destroy();
      return;
    }
    const ownId = own ? response.getHeader?.('x-request-id') : undefined;
    const requestId = typeof ownId === 'string' ? ownId : randomUUID();
    const { status, message } = toHttpError(errorFor(err.code));
    const body = JSON.stringify({ error: status, message });
    if (own && err.code === 'ERR_HTTP_REQUEST_TIMEOUT') timedOutSockets.add(socket);
    logger.warn({ reqId: requestId, status, code: err.code }, 'client error');
    socket.end(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? ''}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-Id: ${requestId}\r\n` +
        rawSecurityHeaders +
        'Connection: close\r\n\r\n' +
        body,
      () => socket.destroy(),
    );
  };
  return answer;
};

/**
 * Answers a request whose `Expect` this server cannot meet (anything but 100-continue, which Node
 * answers itself with `100 Continue`). Without this 'checkExpectation' listener Node would send a
 * bare 417 with an empty body. Here: the contract's JSON 417 with X-Request-Id (the caller's if
 * acceptable) and the usual request log line; the body is never read and the connection closes.
 */
export const answerUnmetExpectation =
  (logger: Logger) =>
  (req: http.IncomingMessage, res: http.ServerResponse): void => {
    const started = performance.now();
    const reqId = chooseRequestId(req.headers['x-request-id']);
    const { status, message } = toHttpError(expectationFailed(req.headers.expect ?? ''));
    const body = JSON.stringify({ error: status, message });
    res.writeHead(status, {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': Buffer.byteLength(body),
      'X-Request-Id': reqId,
      ...SECURITY_HEADERS,
      ...(isPlantsTarget(req.url) ? NO_STORE : {}),
      Connection: 'close',
    });
    res.end(body);
    const ms = Math.round((performance.now() - started) * 100) / 100;
    logger.info({ reqId, method: req.method, route: null, status, ms }, 'request');
  };

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => unknown;

/**
 * Answers CONNECT (this server is no proxy). Node hands a CONNECT request to 'connect' with the
 * raw socket, its HTTP parser detached, and without a listener drops the connection unanswered.
 * Here the app itself answers it, through a response bound to that socket, like any method a
 * route lacks: a known path → 405 with the route fallback's `Allow`, an unknown one → 404, both
 * with the contract's body, X-Request-Id and the request's log line; then `Connection: close`
 * and the socket ends. Whatever the client sends after its headers is discarded.
 */
export const answerConnect =
  (handle: Handler, timeoutMs: number) =>
  (req: http.IncomingMessage, duplex: Duplex): void => {
    const socket = duplex as Socket;
    socket.on('error', () => socket.destroy());
    socket.setTimeout(timeoutMs, () => socket.destroy());
    socket.resume();
    const res = new http.ServerResponse(req);
    res.shouldKeepAlive = false; // → `Connection: close`
    res.assignSocket(socket);
    res.once('finish', () => {
      res.detachSocket(socket);
      socket.end();
    });
    res.once('close', () => {
      if (!res.writableFinished) socket.destroy();
    });
    handle(req, res);
  };

/** What createServer needs of a Koa app. */
/**
 * Counts occurrences and calls `log` with the count since its last call — at once the first time,
 * then at most once every `everyMs`: a flood costs one line a second, and no count is lost.
 */
const countedEvery = (everyMs: number, clock: () => number): ((log: (count: number) => void) => void) => {
  let lastAt = -Infinity;
  let count = 0;
  return (log) => {
    count += 1;
    const now = clock();
    if (now - lastAt < everyMs) return;
    lastAt = now;
    log(count);
    count = 0;
  };
};

/**
 * For the listener's 'error' events once it is listening: an accept that failed — EMFILE or
 * ENFILE when the process or the machine is out of descriptors. libuv has already dropped that
 * connection, and the server goes on serving the ones it holds, so this is logged, not fatal: one
 * line a second at most, with how many failed since the last line.
 */
export const logAcceptErrors = (
  logger: Logger,
  everyMs = 1000,
  clock: () => number = () => performance.now(),
): ((err: NodeJS.ErrnoException) => void) => {
  const tell = countedEvery(everyMs, clock);
  return (err) =>
    tell((failed) =>
      logger.warn(
        { code: err.code, failed },
        'could not accept connections (out of file descriptors?); serving the open ones',
      ),
    );
};

/** The process's soft limit on open descriptors (`/proc/self/limits`); undefined where unknown or unlimited. */
export const descriptorLimit = (): number | undefined => {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    const soft = Number(line?.slice('Max open files'.length).trim().split(/ +/)[0]);
    return Number.isSafeInteger(soft) && soft > 0 ? soft : undefined;
  } catch {
    return undefined;
  }
};

/**
 * Keeps client connections from taking the descriptors the store and the webhook sender need: at
 * most the soft limit less a reserve (a quarter of it, at most 128) are accepted at once. Past
 * that Node closes new connections at once ('drop'), logged once a second at most with how many
 * were refused — rather than libuv's own EMFILE handling, which drops them without a word once
 * every descriptor is gone (and then SQLite, the WAL sync and the webhooks fail too). The limit is
 * read again every second, so a `prlimit` on the running process takes effect.
 */
export const limitConnections = (
  server: http.Server,
  logger: Logger,
  readLimit: () => number | undefined = descriptorLimit,
  everyMs = 1000,
): void => {
  let limit: number | undefined;
  const apply = (): void => {
    limit = readLimit();
    server.maxConnections = limit === undefined ? Infinity : Math.max(1, limit - Math.min(128, Math.floor(limit / 4)));
  };
  apply();
  setInterval(apply, 1000).unref();
  const tell = countedEvery(everyMs, () => performance.now());
  server.on('drop', () =>
    tell((refused) =>
      logger.warn(
        { refused, maxConnections: server.maxConnections, descriptorLimit: limit },
        'refusing connections: as many are open as the descriptor limit allows',
      ),
    ),
  );
};

export interface CallbackApp {
  callback(): (req: http.IncomingMessage, res: http.ServerResponse) => unknown;
}

/** An HTTP server for `app` with SERVER_TIMEOUTS (config/server-timeouts.ts; overridable, for tests); does not listen. */
export const createServer = (app: CallbackApp, logger: Logger, timeouts: Partial<ServerTimeouts> = {}): http.Server => {
  const t = { ...SERVER_TIMEOUTS, ...timeouts };
  const handle = app.callback();
  const server = http.createServer(
    {
      maxHeaderSize: t.maxHeaderSize,
      connectionsCheckingInterval: t.connectionsCheckingIntervalMs,
      // Node's check answers a bare 400 (no JSON body, no X-Request-Id, no log line): the app's
      // http/request-head.ts answers an HTTP/1.1 request without Host instead.
      requireHostHeader: false,
    },
    handle,
  );
  server.headersTimeout = t.headersTimeoutMs;
  server.requestTimeout = t.requestTimeoutMs;
  server.keepAliveTimeout = t.keepAliveTimeoutMs;
  server.on('clientError', answerClientError(logger));
  // No 'checkContinue' listener on purpose: Node keeps answering `Expect: 100-continue` itself.
  server.on('checkExpectation', answerUnmetExpectation(logger));
  server.on('connect', answerConnect(handle, t.requestTimeoutMs));
  // No 'upgrade' listener on purpose: without one Node serves `Upgrade:` requests as plain requests.
  return server;
};
