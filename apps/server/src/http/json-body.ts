import { isUtf8 } from 'node:buffer';
import bodyParser from 'koa-bodyparser';
import type { AppContext, AppMiddleware } from './context.js';
import { elementIdLiteralProblems, idLiteralProblem } from '../wire/json-number.js';
import {
  malformedBody,
  payloadTooLarge,
  requestTimeout,
  unsupportedMediaType,
  type RequestError,
} from './request-error.js';
import { sendError } from './respond.js';
import { timedOutSockets } from './timed-out.js';

/** `application/json`, optionally with `charset=utf-8` (any letter case, quoted or not); nothing else. */
const jsonMediaType = /^application\/json[ \t]*(?:;[ \t]*(?:charset[ \t]*=[ \t]*(?:utf-8|"utf-8")[ \t]*)?)*$/i;
/** The same, or `application/merge-patch+json` (RFC 7396) with the same parameters. */
const mergePatchMediaType =
  /^application\/(?:merge-patch\+)?json[ \t]*(?:;[ \t]*(?:charset[ \t]*=[ \t]*(?:utf-8|"utf-8")[ \t]*)?)*$/i;

export interface JsonBodyOptions {
  /** Accept `application/merge-patch+json` besides `application/json` (PATCH). */
  readonly mergePatch?: boolean;
  /** Runs between the 415 and the 413 checks; its error is answered as it is. */
  readonly checkHeaders?: (ctx: AppContext) => RequestError | undefined;
  /**
   * The body is a JSON array of objects (POST /plants/batch): the messages say so, and each
   * element's `id` is read as written (`bodyProblems` with their `element`).
   */
  readonly array?: boolean;
}

const noop = async (): Promise<void> => {};

interface ParserFailure {
  readonly type?: unknown;
  readonly code?: unknown;
  readonly body?: unknown;
}

/**
 * Whether the body's bytes were valid UTF-8. Node decodes invalid UTF-8 to U+FFFD, so when the
 * decoded text is at hand only a body holding U+FFFD needs its bytes checked.
 */
const isValidUtf8 = (decoded: string | undefined, chunks: readonly Buffer[]): boolean =>
  (decoded !== undefined && !decoded.includes('\uFFFD')) ||
  isUtf8(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks));

const explain = (
  e: unknown,
  chunks: readonly Buffer[],
  limit: number,
  expected: 'object' | 'array',
): RequestError | undefined => {
  if (typeof e !== 'object' || e === null) return undefined;
  const { type, code, body } = e as ParserFailure;
  if (type === 'entity.too.large') return payloadTooLarge(limit);
  if (type === 'request.size.invalid') return malformedBody('request body length does not match Content-Length');
  // The client went away mid-body: nobody reads the answer, but it is no defect of ours either.
  if (type === 'request.aborted' || code === 'ECONNRESET')
    return malformedBody('request body aborted before it was complete');
  if (e instanceof SyntaxError) {
    if (!isValidUtf8(typeof body === 'string' ? body : undefined, chunks))
      return malformedBody('request body is not valid UTF-8');
    return malformedBody(
      e.message === 'invalid JSON, only supports object and array'
        ? `request body: expected a JSON ${expected}`
        : `request body is not valid JSON: ${e.message}`,
    );
  }
  return undefined;
};

/**
 * Reads a JSON request body with koa-bodyparser, guarded so that docs/reference/api.md holds:
 * - `Content-Type` must be application/json (charset utf-8 at most), else 415 — koa-bodyparser
 *   would otherwise accept its other JSON-ish types;
 * - `Content-Encoding` other than identity → 415, checked before the parser, which would
 *   otherwise inflate gzip (a gzip bomb is never inflated here);
 * - more than `limit` bytes as sent → 413, from `Content-Length` before reading and from the
 *   streamed byte count (chunked bodies) while reading;
 * - invalid UTF-8 → 400 (the parser decodes leniently; the bytes are checked here);
 * - malformed JSON, or anything but a JSON object → 400;
 * - a top-level `id` written as a fraction that JSON.parse rounded to an integer: noted in
 *   `ctx.state.bodyProblems` for the route to answer in its one 400 (see idLiteralProblem).
 * The parsed value lands in `ctx.request.body` for the route to decode with the domain codecs.
 * `checkHeaders`, when given, runs between the 415 and the 413 checks (the create's
 * Idempotency-Key syntax goes there in the order of docs/reference/api.md); its error is answered as it is.
 */
export const createJsonBody = (
  limit: number,
  { mergePatch = false, checkHeaders, array = false }: JsonBodyOptions = {},
): AppMiddleware => {
  const mediaType = mergePatch ? mergePatchMediaType : jsonMediaType;
  const expected = mergePatch ? 'application/merge-patch+json or application/json' : 'application/json';
  const options: bodyParser.Options & { readonly onProtoPoisoning: 'ignore' } = {
    enableTypes: ['json'],
    jsonLimit: String(limit), // a plain number of bytes
    strict: true,
    // The media type is checked (more strictly) before the parser runs: skip its own type-is match.
    detectJSON: () => true,
    // Passed on to co-body. The domain codecs build fresh objects and reject `__proto__` as an
    // unknown member by name, which says more than the parser's "forbidden prototype property".
    onProtoPoisoning: 'ignore',
  };
  const parse = bodyParser(options) as unknown as AppMiddleware;

  return async (ctx, next) => {
    const { req } = ctx;
    const { headers } = req;
    const encoding = headers['content-encoding'];
    if (encoding !== undefined && encoding !== '') {
      if (encoding.trim().toLowerCase() !== 'identity') {
        return sendError(
          ctx,
          unsupportedMediaType('compressed request bodies are not accepted; Content-Encoding must be identity'),
        );
      }
      delete headers['content-encoding'];
    }
    const type = headers['content-type'];
    if (type === undefined || !mediaType.test(type)) {
      return sendError(
        ctx,
        unsupportedMediaType(`expected Content-Type ${expected}${type === undefined ? ', got none' : ''}`),
      );
    }
    const headerProblem = checkHeaders?.(ctx);
    if (headerProblem !== undefined) return sendError(ctx, headerProblem);
    const length = headers['content-length'];
    if (length !== undefined && Number(length) > limit) return sendError(ctx, payloadTooLarge(limit));

    const chunks: Buffer[] = [];
    let received = 0;
    const keep = (chunk: Buffer): void => {
      received += chunk.length;
      if (received <= limit) chunks.push(chunk);
    };
    // Registered before the parser's own listener, in the same tick: both see every chunk.
    req.on('data', keep);
    try {
      await parse(ctx, noop);
    } catch (e) {
      // Node cut the request at requestTimeout and already answered 408 (http/server.ts): say so.
      const failure = timedOutSockets.has(req.socket)
        ? requestTimeout
        : explain(e, chunks, limit, array ? 'array' : 'object');
      if (failure === undefined) throw e;
      return sendError(ctx, failure);
    } finally {
      req.off('data', keep);
    }
    const raw = (ctx.request as { rawBody?: unknown }).rawBody;
    if (typeof raw !== 'string' || raw === '')
      return sendError(ctx, malformedBody(`request body is empty; expected a JSON ${array ? 'array' : 'object'}`));
    if (!isValidUtf8(raw, chunks)) return sendError(ctx, malformedBody('request body is not valid UTF-8'));
    if (array) {
      const problems = elementIdLiteralProblems(raw, ctx.request.body);
      if (problems.length > 0) ctx.state.bodyProblems = problems.map((p) => ({ field: 'id', ...p }));
      return next();
    }
    const idProblem = idLiteralProblem(raw, ctx.request.body);
    if (idProblem !== undefined) ctx.state.bodyProblems = [{ field: 'id', problem: idProblem }];
    return next();
  };
};
