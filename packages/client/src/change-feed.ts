/**
 * `client.plants.changes()`: the change feed (docs/guides/changes.md) as an async iterable that
 * reconnects by itself and resumes where it left off.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Duplex } from 'node:stream';
import { Change, ChangePosition, ChangePositionFromString, formatErrors, PlantTag } from '@plant-store/domain';
// eventsource-parser is the npm parser of the WHATWG event-stream format (the one `EventSource`
// follows): CR, LF and CRLF line ends, a line or an event split across chunks, `retry:`, comments
// and a leading BOM. Those rules are easy to get subtly wrong by hand, and a missed event here is a
// mirror that silently differs from the store.
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import * as E from 'fp-ts/lib/Either.js';
import {
  ConnectionError,
  PlantStoreError,
  TimeoutError,
  UnexpectedResponseError,
  ValidationError,
  type PlantStoreErrorDetails,
} from './client-error.js';
import type { RequestInfo } from './hooks.js';
import { findLink } from './link-header.js';
import { parseRetryAfter } from './retry-after.js';
import { createPipeline, networkFailure, type Call, type Pipeline, type TransportConfig } from './request-pipeline.js';
import { RETRYABLE_STATUSES } from './retry.js';
import { failureOf, header, type Exchange } from './transport.js';

/** What `plants.changes` takes. */
export interface ChangesOptions {
  /**
   * Start after this change number: the changes numbered above it (0: every change the server
   * still keeps), e.g. a list page's `changeSeq` or the `seq` of the last change you handled.
   * Absent: the changes committed after the call. The client then first asks the server for its
   * newest number (an empty JSON page of `GET /plants/changes`), so that a reconnect before the
   * first change still misses nothing. Checked before anything is sent (`ValidationError`).
   */
  readonly since?: number;
  /**
   * Only the changes of plants that have this tag before or after the change (exactly, as
   * `list({ tag })` matches). A plant that leaves the tag (its tag changed or removed) arrives as a
   * `plant.left` change, `data: { id }`: it still exists, it no longer has the tag. The server's
   * bookmarks move the position the iteration resumes from past the changes it did not send, so a
   * quiet subset resumed after a while meets no 410 because of it. Checked before anything is sent.
   */
  readonly tag?: string;
  /** Ends the iteration quietly (it returns, nothing is thrown) and closes the stream; the client-wide signal does too. */
  readonly signal?: AbortSignal;
  /**
   * The longest silence, in ms, after which the connection counts as lost and is opened again
   * (a peer that vanished without closing it). The server writes a comment line at least every
   * `CHANGES_HEARTBEAT_MS` (15 s by default, 60 s at most), so the default, 75 000, is above the
   * longest interval a server can be set to.
   */
  readonly idleTimeout?: number;
  /** The `X-Request-Id` of every connection of this iteration; a random UUID by default. */
  readonly requestId?: string;
}

/** The largest backoff ceiling between reconnections. */
export const MAX_RECONNECT_MS = 30_000;
export const DEFAULT_IDLE_TIMEOUT_MS = 75_000;
/** An error answer is read up to this size (its `{error, message}` is far smaller). */
const MAX_ERROR_BODY_BYTES = 64 * 1024;
/** A change is well under a kilobyte; more than this unfinished is not a Plant Store stream. */
const MAX_EVENT_CHARS = 1024 * 1024;

/** Why a connection ended without an error that ends the iteration. */
type Ending =
  | { readonly kind: 'aborted' }
  | {
      readonly kind: 'lost';
      /** Whether the stream was open (200, event-stream): the backoff starts again from the base delay. */
      readonly connected: boolean;
      readonly error: PlantStoreError;
      readonly request: RequestInfo;
      readonly retryAfterMs?: number | undefined;
    };

/**
 * A bookmark of a stream of one tag: the server passed every change up to `seq` without sending
 * it (none of them is of the tag). Not given to callers of `changes`; the mirror reads them.
 */
export interface Bookmark {
  readonly type: 'bookmark';
  readonly seq: ChangePosition;
}

/** What a feed brings: a change, or a bookmark. */
export type FeedItem = Change | Bookmark;

/** What one iteration knows across its connections. */
interface Feed {
  /** Its signal, request id, timeout and trace context, the same for every connection. */
  readonly call: Call;
  readonly idleTimeout: number;
  /** The tag of a feed of one tag. */
  readonly tag: PlantTag | undefined;
  /** The `since` of the stream's URL: the caller's, or the newest number when the iteration began. */
  start: ChangePosition | undefined;
  /** The number of the last change handed to the caller, or of the last bookmark (`start` before either). */
  position: ChangePosition | undefined;
  /** The stream's `retry:` (the server announces 2000), the base of the backoff; before it, the client's `retry.baseDelayMs`. */
  reconnectMs: number;
  /** Requests sent so far (the probe and every connection). */
  attempts: number;
  /** Connections of the stream asked for so far. */
  connections: number;
}

interface Opened {
  readonly request: Duplex;
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly info: RequestInfo;
  readonly details: PlantStoreErrorDetails;
  readonly url: URL;
}

/**
 * The wait before reconnection `failures` (1 for the first since the last connection that
 * opened): full jitter, a random wait below `min(30 s, retryMs · 2^(failures−1))`, so that the
 * clients of a server that restarts do not all come back at once; at least `retryAfterMs`.
 */
export const reconnectDelay = (
  failures: number,
  retryMs: number,
  retryAfterMs: number | undefined,
  random: () => number,
): number => {
  const ceiling = Math.min(MAX_RECONNECT_MS, retryMs * 2 ** (failures - 1));
  return Math.max(retryAfterMs ?? 0, Math.floor(random() * ceiling));
};

/** Whether the iteration was asked to end (a function, so that no check is narrowed across an await). */
const aborted = (feed: Feed): boolean => feed.call.signal?.aborted === true;

const checkSince = (since: number): ChangePosition => {
  if (ChangePosition.is(since)) return since;
  throw new ValidationError([`since: expected an integer from 0 to 9007199254740991, got ${String(since)}`]);
};

const checkTag = (tag: string): PlantTag => {
  const decoded = PlantTag.decode(tag);
  if (E.isRight(decoded)) return decoded.right;
  throw new ValidationError(formatErrors(decoded.left, 'tag'));
};

/** The feed's URL: `plants/changes` with the tag of a feed of one tag. */
const feedUrl = (config: TransportConfig, tag: PlantTag | undefined): URL => {
  const url = new URL('plants/changes', config.baseUrl);
  if (tag !== undefined) url.searchParams.set('tag', tag);
  return url;
};

const checkPositiveMs = (name: string, value: number): number => {
  if (!Number.isFinite(value) || value <= 0)
    throw new TypeError(`${name} must be a positive number of ms, got ${value}`);
  return value;
};

/** An error of the socket or of got's reading of it, as opposed to a defect in this module. */
const isStreamError = (error: unknown): error is Error & { code?: string } =>
  error instanceof Error && typeof (error as { code?: unknown }).code === 'string';

/**
 * Reads what is left of an answer, at most `limit` bytes (more destroys the request), within
 * `ms`. Read to its end, the connection goes back to the agent, kept alive. An answer that has
 * arrived whole is read rather than destroyed: got's `destroy()` then leaves the socket open and
 * referenced, which keeps a process such as the CLI from exiting.
 */
const readBody = async (request: Duplex, limit: number, ms: number): Promise<Buffer> => {
  const timer = setTimeout(
    () => request.destroy(Object.assign(new Error(`no complete answer within ${ms} ms`), { code: 'ETIMEDOUT' })),
    ms,
  );
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of request as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= limit) break;
    }
  } finally {
    clearTimeout(timer);
  }
  return Buffer.concat(chunks).subarray(0, limit);
};

/**
 * What an event carries, checked against the event's `id` and `event` and against the order: a
 * change, or (a stream of one tag) a bookmark, `{"seq":M}` with `id: M`.
 */
const itemOf = (
  message: EventSourceMessage,
  position: number | undefined,
  details: PlantStoreErrorDetails,
): FeedItem => {
  const unexpected = (problems: readonly string[]) =>
    new UnexpectedResponseError(problems, { ...details, status: 200 });
  const what = `the event with id ${JSON.stringify(message.id ?? null)}`;
  let json: unknown;
  try {
    json = JSON.parse(message.data);
  } catch (error) {
    throw unexpected([`${what} has data that is not JSON (${error instanceof Error ? error.message : String(error)})`]);
  }
  let item: FeedItem;
  if (message.event === 'bookmark') {
    const seq = (json as { readonly seq?: unknown } | null)?.seq;
    if (!ChangePosition.is(seq)) throw unexpected([`${what} is a bookmark whose data has no change number`]);
    if (message.id !== String(seq)) throw unexpected([`${what} is a bookmark of ${seq}`]);
    item = { type: 'bookmark', seq };
  } else {
    const decoded = Change.decode(json);
    if (E.isLeft(decoded)) throw unexpected(formatErrors(decoded.left, 'data').map((line) => `${what}: ${line}`));
    item = decoded.right;
    if (message.id !== String(item.seq)) throw unexpected([`${what} carries change ${item.seq}`]);
    if (message.event !== item.type) {
      throw unexpected([`${what} is a ${JSON.stringify(message.event ?? null)} event carrying a ${item.type}`]);
    }
  }
  if (position !== undefined && item.seq <= position) {
    const kind = item.type === 'bookmark' ? 'bookmark' : 'change';
    throw unexpected([`${kind} ${item.seq} came after change ${position}: the feed must be in seq order`]);
  }
  return item;
};

/** The `changes` operation over a resolved transport configuration. */
export const createChangeFeed = (config: TransportConfig, pipeline: Pipeline = createPipeline(config)) => {
  /** Sends one GET of the feed and waits for the answer's head; an `Ending` when none came. */
  const open = async (feed: Feed, url: URL, accept: string): Promise<Opened | Ending> => {
    feed.attempts += 1;
    const { call } = feed;
    const details: PlantStoreErrorDetails = {
      method: 'GET',
      url: url.href,
      requestId: call.requestId,
      attempts: feed.attempts,
    };
    const own: Record<string, string> = { accept };
    // A reconnection names where to resume, as EventSource does: the header wins over `since`.
    if (accept === 'text/event-stream' && feed.connections > 1 && feed.position !== undefined) {
      own['last-event-id'] = String(feed.position);
    }
    const info = await pipeline.prepare(call, { method: 'GET', url, attempt: feed.attempts, headers: own });
    if (info === undefined) return { kind: 'aborted' };
    const request = pipeline.stream(call, info);
    // got reports errors on the stream as 'error' events; one listener stays for the request's
    // life, so a late error (after a destroy, say) is never an unhandled one.
    request.on('error', () => undefined);
    let response: { readonly statusCode: number; readonly headers: IncomingHttpHeaders };
    try {
      response = await new Promise((resolve, reject) => {
        request.once('response', resolve);
        request.once('error', reject);
      });
    } catch (error) {
      request.destroy();
      if (aborted(feed)) return { kind: 'aborted' };
      return {
        kind: 'lost',
        connected: false,
        error: networkFailure(error, call.signal, call.timeout, details),
        request: info,
      };
    }
    await pipeline.responded(info, response);
    return {
      request,
      status: response.statusCode,
      headers: response.headers,
      info,
      details: { ...details, requestId: header(response.headers, 'x-request-id') ?? call.requestId },
      url,
    };
  };

  /** The answer that is not the one asked for: an `Ending` to reconnect after, or the error that ends the iteration. */
  const refuse = async (feed: Feed, opened: Opened): Promise<Ending> => {
    let body: Buffer;
    try {
      body = await readBody(opened.request, MAX_ERROR_BODY_BYTES, config.timeout);
    } catch {
      // The status says enough without the body.
      opened.request.destroy();
      body = Buffer.alloc(0);
    }
    if (aborted(feed)) return { kind: 'aborted' };
    const exchange: Exchange = {
      status: opened.status,
      headers: opened.headers,
      body,
      details: opened.details,
      url: opened.url,
      replayed: false,
      etag: undefined,
    };
    const error = failureOf(exchange);
    if (!RETRYABLE_STATUSES.has(opened.status)) throw error;
    const retryAfterMs = parseRetryAfter(header(opened.headers, 'retry-after'));
    return { kind: 'lost', connected: false, error, request: opened.info, retryAfterMs };
  };

  /** The newest change number, from the `Link` of an empty JSON page; undefined when the iteration may go on. */
  const probe = async (feed: Feed): Promise<Ending | undefined> => {
    const url = feedUrl(config, feed.tag);
    url.searchParams.set('limit', '1');
    const opened = await open(feed, url, 'application/json');
    if ('kind' in opened) return opened;
    if (opened.status !== 200) return refuse(feed, opened);
    try {
      // Read to the end (an empty array), so that the connection goes back to the agent.
      await readBody(opened.request, MAX_ERROR_BODY_BYTES, config.timeout);
    } catch (error) {
      opened.request.destroy();
      if (aborted(feed)) return { kind: 'aborted' };
      if (!isStreamError(error)) throw error;
      const details = { ...opened.details, code: error.code, cause: error };
      return {
        kind: 'lost',
        connected: false,
        error: new ConnectionError(error.message, details),
        request: opened.info,
      };
    }
    const link = findLink(opened.headers.link, 'next', url);
    const since = ChangePositionFromString.decode(link?.searchParams.get('since') ?? undefined);
    if (E.isLeft(since)) {
      throw new UnexpectedResponseError(
        [
          `the answer of GET /plants/changes has no Link rel="next" with a change number (${opened.headers.link ?? 'no Link'})`,
        ],
        { ...opened.details, status: 200 },
      );
    }
    feed.start = since.right;
    feed.position = since.right;
    return undefined;
  };

  /** One connection of the stream: its changes, then why it ended. */
  async function* follow(feed: Feed): AsyncGenerator<FeedItem, Ending, undefined> {
    const url = feedUrl(config, feed.tag);
    url.searchParams.set('since', String(feed.start));
    feed.connections += 1;
    const opened = await open(feed, url, 'text/event-stream');
    if ('kind' in opened) return opened;
    if (opened.status !== 200) return await refuse(feed, opened);
    const { request, details, info } = opened;
    const type = header(opened.headers, 'content-type') ?? '';
    if (!/^text\/event-stream\s*(;|$)/i.test(type)) {
      await readBody(request, MAX_ERROR_BODY_BYTES, config.timeout).catch(() => request.destroy());
      throw new UnexpectedResponseError(
        [`expected Content-Type: text/event-stream, got ${type === '' ? 'none' : JSON.stringify(type)}`],
        { ...details, status: opened.status },
      );
    }
    const received: EventSourceMessage[] = [];
    let overflow = false;
    const parser = createParser({
      onEvent: (message) => void received.push(message),
      onRetry: (ms) => void (feed.reconnectMs = ms),
      // Unknown fields and a malformed retry are ignored, as the format says; only a runaway event is an error.
      onError: (error) => void (overflow ||= error.type === 'max-buffer-size-exceeded'),
      maxBufferSize: MAX_EVENT_CHARS,
    });
    const decoder = new TextDecoder('utf-8');
    let idle: NodeJS.Timeout | undefined;
    let silent = false;
    let ended = false;
    const arm = (): void => {
      clearTimeout(idle);
      idle = setTimeout(() => {
        silent = true;
        request.destroy();
      }, feed.idleTimeout);
    };
    const lost = (error: PlantStoreError): Ending => ({ kind: 'lost', connected: true, error, request: info });
    try {
      arm();
      for await (const chunk of request as AsyncIterable<Buffer>) {
        arm();
        parser.feed(decoder.decode(chunk, { stream: true }));
        if (overflow) {
          throw new UnexpectedResponseError([`an event of the stream is longer than ${MAX_EVENT_CHARS} characters`], {
            ...details,
            status: 200,
          });
        }
        for (let message = received.shift(); message !== undefined; message = received.shift()) {
          const item = itemOf(message, feed.position, details);
          feed.position = item.seq as number as ChangePosition;
          yield item;
        }
      }
      ended = true;
      return lost(
        new ConnectionError('the server ended the change stream (a shutdown, or the token is no longer good)', details),
      );
    } catch (error) {
      if (error instanceof PlantStoreError) throw error;
      if (aborted(feed)) return { kind: 'aborted' };
      if (silent)
        return lost(new TimeoutError(`nothing arrived on the change stream for ${feed.idleTimeout} ms`, details));
      if (!isStreamError(error)) throw error;
      return lost(
        new ConnectionError(`the change stream broke: ${error.message}`, {
          ...details,
          code: error.code,
          cause: error,
        }),
      );
    } finally {
      clearTimeout(idle);
      // Closes the connection whoever ends the iteration: a `break`, a `return`, an error. One the
      // server ended cleanly has gone back to the agent, perhaps to serve another request by now.
      if (!ended) request.destroy();
    }
  }

  /**
   * The feed: the probe when there is no `since`, then one connection after another, each lost
   * one opened again after `reconnectDelay` (based on the stream's `retry:`). Only an abort ends
   * it quietly; a status that another attempt would not change ends it with its error. Changes
   * and bookmarks, in order.
   */
  async function* items(options: ChangesOptions = {}): AsyncGenerator<FeedItem, void, undefined> {
    const since = options.since === undefined ? undefined : checkSince(options.since);
    const tag = options.tag === undefined ? undefined : checkTag(options.tag);
    // Every connection belongs to the caller's span and carries one request id, as every retry of a call does.
    const call = pipeline.startCall({ signal: options.signal, requestId: options.requestId });
    const feed: Feed = {
      call,
      idleTimeout: checkPositiveMs('idleTimeout', options.idleTimeout ?? DEFAULT_IDLE_TIMEOUT_MS),
      tag,
      start: since,
      position: since,
      reconnectMs: config.retry.baseDelayMs,
      attempts: 0,
      connections: 0,
    };
    let failures = 0;
    for (;;) {
      if (aborted(feed)) return;
      const ending = feed.start === undefined ? await probe(feed) : yield* follow(feed);
      if (ending === undefined) {
        failures = 0;
        continue;
      }
      if (ending.kind === 'aborted') return;
      failures = ending.connected ? 1 : failures + 1;
      const { retryAfterMs } = ending;
      if (retryAfterMs !== undefined && retryAfterMs > config.retry.maxRetryAfterMs) throw ending.error;
      const delayMs = reconnectDelay(failures, feed.reconnectMs, retryAfterMs, pipeline.random);
      if (!(await pipeline.waitToRetry(call, { request: ending.request, error: ending.error, delayMs }))) return;
    }
  }

  /** The feed as callers of `plants.changes` see it: the changes, the bookmarks kept inside. */
  async function* changes(options: ChangesOptions = {}): AsyncGenerator<Change, void, undefined> {
    for await (const item of items(options)) if (item.type !== 'bookmark') yield item;
  }

  return { changes, items };
};
