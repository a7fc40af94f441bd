import type Router from '@koa/router';
import { ChangePositionFromString, ChangesQuery, decodeWith, type PlantTag } from '@plant-store/domain';
import * as E from 'fp-ts/lib/Either.js';
import {
  batchOfRead,
  entryOf,
  type ChangeBatch,
  type ChangeEntry,
  type ChangeHub,
  type Follower,
} from '../changes/change-hub.js';
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

/**
 * `Link` of the next JSON page: from `since` (the last change's number, or where the page stood),
 * with the tag asked (form-urlencoded, as URLSearchParams writes it) and the limit used.
 */
const nextLink = (since: number, tag: PlantTag | undefined, limit: number): string => {
  const params = new URLSearchParams({ since: String(since) });
  if (tag !== undefined) params.set('tag', tag);
  params.set('limit', String(limit));
  return `</plants/changes?${params.toString()}>; rel="next"`;
};

/** A page that waited: the changes it shows, and the number it looked through. */
interface Waited {
  readonly entries: readonly ChangeEntry[];
  readonly through: number;
}

const pageJson = (entries: readonly ChangeEntry[]): string => `[${entries.map((e) => e.json).join(',')}]`;

/**
 * GET /plants/changes (docs/reference/api.md, "Following changes"): the change log from a number
 * on, as a `text/event-stream` that stays open or as JSON pages with long polling; with `tag`,
 * only the changes of plants with that tag before or after them, a plant that left as `plant.left`. Authenticated
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

  /**
   * Waits up to `seconds` for a change above `position` that the feed (all, or of `tag`) shows: at
   * most `limit` of them, or none; and the number it looked through (a feed of one tag passes
   * the changes it does not show).
   */
  const waitForChanges = (
    ctx: AppContext,
    position: number,
    tag: PlantTag | undefined,
    limit: number,
    seconds: number,
  ) =>
    new Promise<Waited>((resolve) => {
      let done = false;
      const finish = (entries: readonly ChangeEntry[], through: number): void => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        hub.leave(follower);
        resolve({ entries, through });
      };
      const follower: Follower & { position: number } = {
        position,
        tag,
        deliver: (batch: ChangeBatch) => {
          const above = batch.above(follower.position, tag);
          // A full page stops at its last change; otherwise it looked through the whole batch.
          if (above.length >= limit) finish(above.slice(0, limit), (above[limit - 1] as ChangeEntry).change.seq);
          else if (above.length > 0) finish(above, Math.max(follower.position, batch.through));
          else follower.position = Math.max(follower.position, batch.through);
        },
        end: () => finish([], follower.position),
      };
      const timer = setTimeout(() => finish([], follower.position), seconds * 1000);
      ctx.req.on('close', () => finish([], follower.position));
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
    const { tag } = query.right;
    let position: number;
    let first: readonly ChangeEntry[] = [];
    if (since === undefined) {
      const newest = await changes.newest()();
      if (E.isLeft(newest)) return sendError(ctx, newest.left);
      position = newest.right;
    } else {
      const size = streaming ? 1000 : limit;
      const expiredBefore = Date.now() - retentionMs;
      // A feed of one tag reads through the log's indexes by tag, and is judged by its position too.
      const read = await (
        tag === undefined
          ? changes.above(since, size, expiredBefore)
          : changes.aboveTagged(since, tag, size, expiredBefore)
      )();
      if (E.isLeft(read)) return sendError(ctx, read.left);
      if (read.right.kind === 'ahead') {
        const name = ctx.req.headers['last-event-id'] === undefined ? 'since' : 'Last-Event-ID';
        return sendError(
          ctx,
          malformedRequest(`${name}: ${since} is above the newest change number, ${read.right.newest}`),
        );
      }
      if (read.right.kind === 'expired') return sendError(ctx, changesExpired(since));
      if (tag === undefined) {
        position = since;
        first = read.right.changes.map(entryOf);
      } else {
        // What a page of one tag shows, and the number it looked through: the last change when
        // the page is full, else the newest of its snapshot (an empty page moves too).
        const batch = batchOfRead(since, read.right, size);
        first = batch.above(since, tag);
        position = batch.through;
      }
    }

    if (!streaming) {
      let through = first.at(-1)?.change.seq ?? position;
      if (tag !== undefined) through = Math.max(through, position);
      if (first.length === 0 && wait !== undefined) {
        const waited = await waitForChanges(ctx, through, tag, limit, wait);
        first = waited.entries;
        through = waited.through;
        const oldest = first[0];
        if (oldest !== undefined) metrics?.sent(first.length, (Date.now() - oldest.change.at) / 1000);
      }
      setHeader(ctx, 'Link', nextLink(through, tag, limit));
      return sendJsonText(ctx, pageJson(first));
    }

    // The stream: Koa steps aside, the answer is written as changes come.
    ctx.status = 200;
    ctx.respond = false;
    const token = readBearerToken(authorizationValues(ctx.req.rawHeaders), false);
    let unwatch = (): void => undefined;
    const stream = new ChangeStream(ctx.res, since ?? position, {
      tag,
      heartbeatMs: deps.heartbeatMs,
      maxBufferBytes: deps.maxBufferBytes,
      metrics,
      onEnd: () => {
        unwatch();
        hub.leave(stream);
      },
    });
    if (E.isRight(token)) unwatch = credentials.watch(token.right, () => stream.end());
    stream.open(first, position);
    void hub.follow(stream);
  });
};
