/**
 * An OTLP/HTTP trace receiver for tests: a real `node:http` server on 127.0.0.1 that accepts what
 * the official exporters send to `POST /v1/traces` (`http/protobuf` or `http/json`, gzip or not),
 * keeps every body and the decoded spans, and can be slow or refuse on demand so a test can watch
 * the exporter cope.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { promisify } from 'node:util';
import { gunzip, inflate } from 'node:zlib';
import {
  decodeExportRequest,
  encodeExportResponse,
  encodeRpcStatus,
  encodingOf,
  type OtlpEncoding,
} from './otlp-decode.js';
import type { ReceivedSpan } from './otlp-model.js';

export interface OtlpBehaviour {
  /** Answer each request only after this many milliseconds (default 0). */
  readonly delayMs: number;
  /**
   * The HTTP status to answer a well-formed export with (default 200). Spans of a request answered
   * with anything but 2xx are not kept, as the exporter will send them again or drop them.
   */
  readonly status: number;
}

export type OtlpReceiverOptions = Partial<OtlpBehaviour>;

export interface ReceivedRequest {
  readonly method: string;
  readonly path: string;
  /** The Content-Type header as sent ('' when missing). */
  readonly contentType: string;
  /** The Content-Encoding header as sent, when there was one. */
  readonly contentEncoding?: string;
  /** The body, gunzipped when it came compressed (as sent when it could not be). */
  readonly body: Buffer;
  /** The status the receiver answered (or will answer, while delayed). */
  readonly status: number;
  /** How many spans the body held (0 when it was refused). */
  readonly spanCount: number;
  /** Why the request was refused, when it was for a reason of its own rather than `status`. */
  readonly error?: string;
}

export interface WaitForSpansOptions {
  /** Give up after this long (default 5000 ms). */
  readonly timeoutMs?: number;
  /** Wait until at least this many spans match (default 1). */
  readonly count?: number;
}

export interface OtlpReceiver {
  /** `http://127.0.0.1:<port>`, for `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  readonly url: string;
  /** `<url>/v1/traces`, for `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or an exporter's `url`. */
  readonly tracesUrl: string;
  /** Every span accepted so far, in arrival order. */
  spans(): readonly ReceivedSpan[];
  /** Every request body so far, gunzipped: the bytes to search for what must never be exported. */
  rawBodies(): readonly Buffer[];
  /** Every request so far, refused ones included. */
  requests(): readonly ReceivedRequest[];
  /**
   * Resolves with the accepted spans that satisfy `predicate` once there are `count` of them;
   * rejects after `timeoutMs` with the names of the spans seen and the requests refused.
   */
  waitForSpans(predicate: (span: ReceivedSpan) => boolean, options?: WaitForSpansOptions): Promise<ReceivedSpan[]>;
  /** Changes how later requests are answered (requests already waiting keep theirs). */
  setBehaviour(behaviour: Partial<OtlpBehaviour>): void;
  /** Forgets the spans, bodies and requests received so far. */
  clear(): void;
  /** Stops listening, drops open connections and delayed answers, and rejects pending waits. */
  close(): Promise<void>;
}

const gunzipAsync = promisify(gunzip);
const inflateAsync = promisify(inflate);

/** The google.rpc.Code an OTLP/HTTP error status stands for (in the error body). */
const rpcCode = (status: number): number =>
  status === 400 ? 3 : status === 429 ? 8 : status === 502 || status === 503 || status === 504 ? 14 : 2;

const isSuccess = (status: number): boolean => status >= 200 && status < 300;

interface Answer {
  readonly status: number;
  readonly contentType: string;
  readonly body: Buffer;
}

const plain = (status: number, message: string): Answer => ({
  status,
  contentType: 'text/plain; charset=utf-8',
  body: Buffer.from(`${message}\n`),
});

const contentTypeOf = (encoding: OtlpEncoding): string =>
  encoding === 'json' ? 'application/json' : 'application/x-protobuf';

const rpcStatusAnswer = (encoding: OtlpEncoding, status: number, message: string): Answer => ({
  status,
  contentType: contentTypeOf(encoding),
  body: encodeRpcStatus(encoding, rpcCode(status), message),
});

/** The body as sent before its Content-Encoding, or undefined for a coding the receiver does not know. */
const decompress = async (body: Buffer, contentEncoding: string | undefined): Promise<Buffer | undefined> => {
  const coding = contentEncoding?.trim().toLowerCase();
  if (coding === undefined || coding === '' || coding === 'identity') return body;
  if (coding === 'gzip') return gunzipAsync(body);
  if (coding === 'deflate') return inflateAsync(body);
  return undefined;
};

interface Waiter {
  check(): void;
  abort(reason: string): void;
}

/** Starts a receiver on a free port of 127.0.0.1. Close it in `afterEach`/`afterAll`. */
export const startOtlpReceiver = async (options: OtlpReceiverOptions = {}): Promise<OtlpReceiver> => {
  let behaviour: OtlpBehaviour = { delayMs: options.delayMs ?? 0, status: options.status ?? 200 };
  let spans: ReceivedSpan[] = [];
  let requests: ReceivedRequest[] = [];
  const waiters = new Set<Waiter>();
  const delayed = new Set<{ timer: NodeJS.Timeout; res: ServerResponse }>();
  let closing: Promise<void> | undefined;

  const answerOf = async (
    req: IncomingMessage,
    path: string,
    received: Buffer,
    { status }: OtlpBehaviour,
  ): Promise<{ answer: Answer; request: ReceivedRequest; accepted: readonly ReceivedSpan[] }> => {
    const contentType = req.headers['content-type'] ?? '';
    const contentEncoding = req.headers['content-encoding'];
    const base = {
      method: req.method ?? '',
      path,
      contentType,
      ...(contentEncoding === undefined ? {} : { contentEncoding }),
    };
    const refuse = (answer: Answer, body: Buffer, error: string) => ({
      answer,
      request: { ...base, body, status: answer.status, spanCount: 0, error },
      accepted: [],
    });
    if (path !== '/v1/traces') return refuse(plain(404, 'not found'), received, `no such path ${path}`);
    if (req.method !== 'POST') return refuse(plain(405, 'POST only'), received, `method ${req.method} on ${path}`);
    let body: Buffer | undefined;
    try {
      body = await decompress(received, contentEncoding);
    } catch (error) {
      const message = `Content-Encoding ${contentEncoding}: ${(error as Error).message}`;
      return refuse(plain(400, message), received, message);
    }
    if (body === undefined) {
      const message = `unsupported Content-Encoding ${JSON.stringify(contentEncoding)} (OTLP/HTTP allows gzip)`;
      return refuse(plain(415, message), received, message);
    }
    const encoding = encodingOf(contentType);
    if (encoding === undefined) {
      const message = `unsupported Content-Type ${JSON.stringify(contentType)} (OTLP/HTTP sends application/x-protobuf or application/json)`;
      return refuse(plain(415, message), body, message);
    }
    const decoded = decodeExportRequest(body, encoding);
    if (decoded.tag === 'Undecodable') {
      return refuse(rpcStatusAnswer(encoding, 400, decoded.message), body, decoded.message);
    }
    const answer = isSuccess(status)
      ? { status, contentType: contentTypeOf(encoding), body: encodeExportResponse(encoding) }
      : rpcStatusAnswer(encoding, status, `status ${status} set on the test's OTLP receiver`);
    return {
      answer,
      request: { ...base, body, status, spanCount: decoded.spans.length },
      accepted: isSuccess(status) ? decoded.spans : [],
    };
  };

  const send = (res: ServerResponse, answer: Answer): void => {
    res.writeHead(answer.status, { 'content-type': answer.contentType, 'content-length': answer.body.length });
    res.end(answer.body);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const current = behaviour;
    const path = new URL(req.url ?? '/', 'http://receiver').pathname;
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const { answer, request, accepted } = await answerOf(req, path, Buffer.concat(chunks), current);
    if (closing !== undefined) return void res.destroy();
    requests.push(request);
    if (accepted.length > 0) {
      spans.push(...accepted);
      for (const waiter of [...waiters]) waiter.check();
    }
    if (current.delayMs <= 0) return send(res, answer);
    const entry = {
      res,
      timer: setTimeout(() => {
        delayed.delete(entry);
        send(res, answer);
      }, current.delayMs),
    };
    delayed.add(entry);
  };

  const server = createServer((req, res) => {
    // A request stream that breaks (the exporter gave up) leaves nothing to answer.
    handle(req, res).catch(() => res.destroy());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new TypeError('no port from the OS');
  const url = `http://127.0.0.1:${address.port}`;

  const describeSeen = (): string => {
    const names = new Map<string, number>();
    for (const span of spans) names.set(span.name, (names.get(span.name) ?? 0) + 1);
    const seen =
      names.size === 0
        ? 'no spans received'
        : `spans received: ${[...names].map(([name, n]) => (n === 1 ? name : `${name} (×${n})`)).join(', ')}`;
    const refused = requests.filter((r) => r.error !== undefined || !isSuccess(r.status));
    const refusals = refused.map((r) => `${r.status} ${r.error ?? 'as set by setBehaviour/options'}`);
    return `${seen}; ${requests.length} request(s)${refused.length === 0 ? '' : `, refused: ${refusals.join('; ')}`}`;
  };

  return {
    url,
    tracesUrl: `${url}/v1/traces`,
    spans: () => [...spans],
    rawBodies: () => requests.map((r) => r.body),
    requests: () => [...requests],
    waitForSpans: (predicate, { timeoutMs = 5_000, count = 1 } = {}) =>
      new Promise<ReceivedSpan[]>((resolve, reject) => {
        if (closing !== undefined) return reject(new Error('waitForSpans: the OTLP receiver is closed'));
        let matched = 0;
        const finish = (): void => {
          clearTimeout(timer);
          waiters.delete(waiter);
        };
        const waiter: Waiter = {
          check: () => {
            try {
              const matching = spans.filter(predicate);
              matched = matching.length;
              if (matched < count) return;
              finish();
              resolve(matching);
            } catch (error) {
              finish();
              reject(error as Error);
            }
          },
          abort: (reason) => {
            finish();
            reject(new Error(`waitForSpans: ${reason}; ${describeSeen()}`));
          },
        };
        const timer = setTimeout(() => {
          const partly = count === 1 ? '' : ` (${matched} of ${count} matched)`;
          waiter.abort(`no matching span within ${timeoutMs} ms${partly}`);
        }, timeoutMs);
        waiters.add(waiter);
        waiter.check();
      }),
    setBehaviour: (change) => {
      behaviour = { ...behaviour, ...change };
    },
    clear: () => {
      spans = [];
      requests = [];
    },
    close: () => {
      closing ??= (async () => {
        for (const waiter of [...waiters]) waiter.abort('the OTLP receiver was closed');
        for (const { timer, res } of delayed) {
          clearTimeout(timer);
          res.destroy();
        }
        delayed.clear();
        const closed = once(server, 'close');
        server.close();
        server.closeAllConnections();
        await closed;
      })();
      return closing;
    },
  };
};
