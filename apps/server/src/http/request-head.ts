import type { IncomingMessage } from 'node:http';
import type { AppContext } from './context.js';
import { malformedRequest, unsupportedTransferCoding, type RequestError } from './request-error.js';
import { sendError } from './respond.js';

const missingHost = malformedRequest('missing Host header; HTTP/1.1 requires one');
const repeatedHost = malformedRequest('more than one Host header; send exactly one');
const fragmentInTarget = malformedRequest(
  'the request target must not contain a fragment ("#"); send the path without it',
);

/** How many `Host` lines the request had (Node keeps the first in `headers` and drops the rest). */
const hostLines = (raw: readonly string[]): number => {
  let n = 0;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] as string;
    if (name.length === 4 && name.toLowerCase() === 'host') n += 1;
  }
  return n;
};

/**
 * Checks of the request head that Node leaves to the server, made by the request frame
 * (request-frame.ts) once the request id is set, so that each gets the contract's JSON 400 and the
 * request's log line. The connection then closes: a client that frames its request wrongly may
 * frame the rest of its bytes wrongly too.
 *
 * - HTTP/1.1 requires a `Host` header (RFC 9112 §3.2; HTTP/1.0 may omit it). Node's own check
 *   (`requireHostHeader`) answers a bare 400 before the app runs (empty body, no Content-Type, no
 *   X-Request-Id, no log line), so http/server.ts turns it off and this check answers instead.
 *   More than one `Host` line is a 400 too (the same section); Node would keep the first.
 * - A request target has no fragment (RFC 9112 §3.2: origin-form is path and query only), yet
 *   Node's parser accepts `DELETE /plants/1#x/0` and URL parsing drops everything from `#` on, so
 *   the request would act on `/plants/1` — not what the caller wrote. Refused instead.
 * - A `Transfer-Encoding` that ends in `chunked` but names another coding too (`gzip, chunked`,
 *   on one line or two: Node joins them) reaches the app with the body still in that coding:
 *   501, a coding this server does not understand (RFC 9112 §6.1). One that does not end in
 *   `chunked`, or repeats it, never gets here: Node's parser refuses it (http/server.ts, 400).
 */
export const requestHeadProblem = (req: IncomingMessage): RequestError | undefined => {
  if (req.url?.includes('#') === true) return fragmentInTarget;
  const te = req.headers['transfer-encoding'];
  if (te !== undefined && !/^\s*chunked\s*$/i.test(te)) return unsupportedTransferCoding(te);
  if (req.headers.host !== undefined) return hostLines(req.rawHeaders) > 1 ? repeatedHost : undefined;
  const http11OrLater = req.httpVersionMajor > 1 || (req.httpVersionMajor === 1 && req.httpVersionMinor >= 1);
  return http11OrLater ? missingHost : undefined;
};

/** The answer to a request head `requestHeadProblem` refuses: its JSON 4xx/501 with `Connection: close`. */
export const refuseRequestHead = (ctx: AppContext, problem: RequestError): void => {
  ctx.set('Connection', 'close');
  sendError(ctx, problem);
};
