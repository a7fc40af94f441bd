import type Router from '@koa/router';
import { ChangePositionFromString, ChangesQuery, decodeWith } from '@plant-store/domain';
import * as E from 'fp-ts/lib/Either.js';
import { entryOf, type ChangeBatch, type ChangeEntry, type ChangeHub, type Follower } from '../changes/change-hub.js';
import type { CredentialWatch } from '../changes/credential-watch.js';
import type { ChangeFeedObserver } from '../ops/metrics.js';
import type { ChangeLog } from '../ports/change-log.js';
import type { RateLimiter } from '../rate-limit/rate-limiter.js';
import type { Authenticator } from '../tokens/principal.js';
import { authorizationValues, readBearerToken, requireScope } from './auth.js';
import { ChangeStream } from './change-stream.js';
import type { AppContext, AppState } from './context.js';
import { parseFormQuery } from './form-query.js';
import { changesExpired, malformedRequest, methodNotAllowed, notAcceptable, tooManyStreams } from './request-error.js';
import { sendError, sendJsonText, setHeader } from './respond.js';

const decodeQuery = decodeWith(ChangesQuery);
const decodeLastEventId = decodeWith(ChangePositionFromString, 'Last-Event-ID');

export interface ChangeRoutesDeps {
  /** The log as requests read it (traced when tracing is on). */
  readonly changes: ChangeLog;
  readonly hub: ChangeHub;
  readonly auth: Authenticator;
  readonly credentials: CredentialWatch;
  readonly rateLimiter?: RateLimiter | undefined;
  /** CHANGES_RETENTION in ms: a change older than this above `since` → 410. */
  readonly retentionMs: number;
  readonly heartbeatMs: number;
  readonly maxBufferBytes: number;
  readonly maxStreams: number;
  readonly metrics?: ChangeFeedObserver | undefined;
}

/** `Link` of the next JSON page: from the last change's number (or `since`), with the limit used. */
const nextLink = (since: number, limit: number): string =>
  `</plants/changes?since=${since}&limit=${limit}>; rel="next"`;

const pageJson = (entries: readonly ChangeEntry[]): string => `[${entries.map((e) => e.json).join(',')}]`;

/**
 * GET /plants/changes (docs/reference/api.md, "Following changes"): the change log from a number
 * on, as a `text/event-stream` that stays open or as JSON pages with long polling. Authenticated
 * and rate limited like any read (opening a stream counts once); the 400s, 406 and 410 are decided
 * by one read of the log before anything is sent.
 */
export const addChangeRoutes = (router: Router<AppState>, deps: ChangeRoutesDeps): void => {
  const { changes, hub, credentials, retentionMs, maxStreams, metrics } = deps;
  const canRead = requireScope(deps.auth, 'plants:read', deps.rateLimiter);

  /** Where the request starts: `Last-Event-ID`, else `since`, else undefined (from now on). */
  const startOf = (ctx: AppContext, since: number | undefined) => {
    const header = ctx.req.headers['last-event-id'];
    if (header === undefined) return E.right(since);
    return decodeLastEventId(header);
  };

  /** Waits up to `seconds` for a change above `position`: at most `limit` of them, or none. */
  const waitForChanges = (ctx: AppContext, position: number, limit: number, seconds: number) =>
    new Promise<readonly ChangeEntry[]>((resolve) => {
      let done = false;
      const finish = (entries: readonly ChangeEntry[]): void => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        hub.leave(follower);
        resolve(entries);
      };
      const follower: Follower = {
        position,
        deliver: (batch: ChangeBatch) => {
          const above = batch.above(position);
          if (above.length > 0) finish(above.slice(0, limit));
        },
        end: () => finish([]),
      };
      const timer = setTimeout(() => finish([]), seconds * 1000);
      ctx.req.on('close', () => finish([]));
      void hub.follow(follower);
    });

  // /plants/changes also matches /plants/:id: every other method is answered here, as the route
  // fallback answers it for a path of its own (405 with Allow, OPTIONS 204), before authentication.
  const allow = 'GET, HEAD, OPTIONS';
  router.all('/plants/changes', (ctx, next) => {
    if (ctx.method === 'GET' || ctx.method === 'HEAD') return next();
    if (ctx.method === 'OPTIONS') {
      ctx.status = 204;
      setHeader(ctx, 'Allow', allow);
      return;
    }
    sendError(ctx, methodNotAllowed(ctx.method, '/plants/changes', allow));
  });

  router.get('/plants/changes', canRead, async (ctx) => {
    const query = E.chain(decodeQuery)(parseFormQuery(ctx.querystring));
    if (E.isLeft(query)) return sendError(ctx, query.left);
    const start = startOf(ctx, query.right.since);
    if (E.isLeft(start)) return sendError(ctx, start.left);
    const form = ctx.accepts('application/json', 'text/event-stream');
    if (form === false)
      return sendError(ctx, notAcceptable('GET /plants/changes answers application/json or text/event-stream'));
    const streaming = form === 'text/event-stream' && ctx.method === 'GET';
    const { limit, wait } = query.right;
    const holds = streaming || wait !== undefined;
    if (holds && hub.size >= maxStreams) return sendError(ctx, tooManyStreams(maxStreams));

    const since = start.right;
    let position: number;
    let first: readonly ChangeEntry[] = [];
    if (since === undefined) {
      const newest = await changes.newest()();
      if (E.isLeft(newest)) return sendError(ctx, newest.left);
      position = newest.right;
    } else {
      const read = await changes.above(since, streaming ? 1000 : limit, Date.now() - retentionMs)();
      if (E.isLeft(read)) return sendError(ctx, read.left);
      if (read.right.kind === 'ahead') {
        const name = ctx.req.headers['last-event-id'] === undefined ? 'since' : 'Last-Event-ID';
        return sendError(
          ctx,
          malformedRequest(`${name}: ${since} is above the newest change number, ${read.right.newest}`),
        );
      }
      if (read.right.kind === 'expired') return sendError(ctx, changesExpired(since));
      position = since;
      first = read.right.changes.map(entryOf);
    }

    if (!streaming) {
      if (first.length === 0 && wait !== undefined) {
        first = await waitForChanges(ctx, position, limit, wait);
        const oldest = first[0];
        if (oldest !== undefined) metrics?.sent(first.length, (Date.now() - oldest.change.at) / 1000);
      }
      const last = first.at(-1);
      setHeader(ctx, 'Link', nextLink(last === undefined ? position : last.change.seq, limit));
      return sendJsonText(ctx, pageJson(first));
    }

    // The stream: Koa steps aside, the answer is written as changes come.
    ctx.status = 200;
    ctx.respond = false;
    const token = readBearerToken(authorizationValues(ctx.req.rawHeaders), false);
    let unwatch = (): void => undefined;
    const stream = new ChangeStream(ctx.res, position, {
      heartbeatMs: deps.heartbeatMs,
      maxBufferBytes: deps.maxBufferBytes,
      metrics,
      onEnd: () => {
        unwatch();
        hub.leave(stream);
      },
    });
    if (E.isRight(token)) unwatch = credentials.watch(token.right, () => stream.end());
    stream.open(first);
    void hub.follow(stream);
  });
};
