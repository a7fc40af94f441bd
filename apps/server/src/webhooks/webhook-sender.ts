import http from 'node:http';
import https from 'node:https';
import { isIP, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import * as E from 'fp-ts/lib/Either.js';
import {
  checkWebhookUrl,
  resolveWebhookAddress,
  type AddressPolicy,
  type CheckedAddress,
  type LookupAll,
} from './address-policy.js';
import { parseRetryAfter } from './retry-schedule.js';

export interface AttemptRequest {
  readonly url: string; // the endpoint URL as stored
  readonly body: string; // sent byte for byte
  readonly headers: Readonly<Record<string, string>>; // webhook-id, webhook-timestamp, webhook-signature, user-agent; the sender adds content-type: application/json and content-length
}

export type AttemptOutcome =
  | { readonly kind: 'delivered'; readonly status: number; readonly durationMs: number }
  | {
      readonly kind: 'failed';
      readonly status?: number;
      readonly retryAfterMs?: number;
      readonly error: string;
      readonly gone: boolean;
      readonly durationMs: number;
    };

export interface WebhookSenderOptions {
  /** WEBHOOK_TIMEOUT_MS: from the start of DNS and connect to the status line and headers; the whole attempt never takes longer. */
  readonly timeoutMs: number;
  readonly policy: AddressPolicy;
  /** Name resolution (default: the system resolver). */
  readonly lookup?: LookupAll;
  /** Keep-alive connections per checked address, port and TLS server name (default 16). */
  readonly maxSocketsPerAddress?: number;
  /** Trusted CA certificates instead of Node's bundled ones: for tests only. */
  readonly ca?: string | Buffer | readonly (string | Buffer)[];
}

/** How much of an answer's body is read (and ignored) before the connection is dropped. */
export const MAX_RESPONSE_BODY_BYTES = 64 * 1024;

type Answer =
  | Omit<Extract<AttemptOutcome, { kind: 'delivered' }>, 'durationMs'>
  | Omit<Extract<AttemptOutcome, { kind: 'failed' }>, 'durationMs'>;

const failure = (error: string, status?: number): Answer =>
  status === undefined ? { kind: 'failed', error, gone: false } : { kind: 'failed', status, error, gone: false };

const answerTo = (response: http.IncomingMessage): Answer => {
  const status = response.statusCode ?? 0;
  if (status >= 200 && status <= 299) return { kind: 'delivered', status };
  const error = status >= 300 && status <= 399 ? `HTTP ${status} (redirects are not followed)` : `HTTP ${status}`;
  if (status === 410) return { kind: 'failed', status, error, gone: true };
  if (status === 429 || status === 503) {
    const retryAfterMs = parseRetryAfter(response.headers['retry-after'], new Date());
    if (retryAfterMs !== undefined) return { kind: 'failed', status, retryAfterMs, error, gone: false };
  }
  return failure(error, status);
};

const codeOf = (error: unknown): string | undefined =>
  typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string'
    ? error.code
    : undefined;

/** A short reason for a connection failure: the error code and the origin, never the path, query or message text. */
const describeError = (error: unknown, origin: string): string => {
  const code = codeOf(error);
  if (code === undefined) return `connection to ${origin} failed`;
  if (/CERT|SSL|TLS|EPROTO/.test(code)) return `TLS error (${code}) with ${origin}`;
  return `${code} from ${origin}`;
};

/**
 * Sends one attempt of a delivery (contract § Events: webhooks, "Delivery" and "Safety").
 *
 * Every attempt checks the URL again (syntax, then every address the host resolves to), and the
 * TCP/TLS connection goes to the checked address itself: the request's `host` is that IP, so Node
 * does no second lookup, and DNS rebinding has nothing to rebind. The `Host` header and the TLS
 * server name (SNI and certificate check) stay the URL's host name. Keep-alive pools are keyed by
 * that IP, port and server name (Node's agent names), so a pooled connection is always to an
 * address that was checked for that host. No proxy is ever used (Node's http does not read proxy
 * variables; the agents here are private, never the global ones); redirects are not followed.
 */
export class WebhookSender {
  readonly #timeoutMs: number;
  readonly #policy: AddressPolicy;
  readonly #lookup: LookupAll | undefined;
  readonly #http: http.Agent;
  readonly #https: https.Agent;
  #closed = false;

  constructor(options: WebhookSenderOptions) {
    if (!Number.isSafeInteger(options.timeoutMs) || options.timeoutMs < 1)
      throw new TypeError(`WebhookSender timeoutMs must be an integer ≥ 1, got ${options.timeoutMs}`);
    const maxSockets = options.maxSocketsPerAddress ?? 16;
    if (!Number.isSafeInteger(maxSockets) || maxSockets < 1)
      throw new TypeError(`WebhookSender maxSocketsPerAddress must be an integer ≥ 1, got ${maxSockets}`);
    this.#timeoutMs = options.timeoutMs;
    this.#policy = options.policy;
    this.#lookup = options.lookup;
    const agentOptions = { keepAlive: true, maxSockets, scheduling: 'lifo' } as const;
    this.#http = new http.Agent(agentOptions);
    this.#https = new https.Agent(
      options.ca === undefined
        ? agentOptions
        : { ...agentOptions, ca: options.ca as string | Buffer | (string | Buffer)[] },
    );
    // After close, a connection an in-flight send gives back is not kept.
    const dropWhenClosed = (socket: Socket) => {
      if (this.#closed) socket.destroy();
    };
    this.#http.on('free', dropWhenClosed);
    this.#https.on('free', dropWhenClosed);
  }

  /** Never rejects. */
  send(request: AttemptRequest): Promise<AttemptOutcome> {
    const started = performance.now();
    const done = (answer: Answer): AttemptOutcome => ({ ...answer, durationMs: performance.now() - started });
    const checked = checkWebhookUrl(request.url, this.#policy);
    if (E.isLeft(checked)) return Promise.resolve(done(failure(`URL refused: ${checked.left}`)));
    const url = checked.right;
    return new Promise<AttemptOutcome>((resolve) => {
      let settled = false;
      let pending: http.ClientRequest | undefined;
      let response: http.IncomingMessage | undefined;
      let answer: Answer | undefined;
      const finish = (outcome: Answer) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(done(outcome));
      };
      const timer = setTimeout(() => {
        if (answer !== undefined) {
          // The status line and headers came in time; the rest of the body is not waited for.
          response?.destroy();
          finish(answer);
          return;
        }
        const socket = pending?.socket;
        const phase =
          pending === undefined
            ? 'resolving the host'
            : socket === null || socket === undefined || socket.connecting
              ? 'connecting'
              : 'waiting for the response headers';
        pending?.destroy();
        finish(failure(`timed out after ${this.#timeoutMs} ms ${phase} (${url.origin})`));
      }, this.#timeoutMs);

      const post = (target: CheckedAddress, retried: boolean) => {
        let req: http.ClientRequest;
        try {
          req = this.#request(url, target, request);
        } catch (error) {
          // http.request throws for header names or values it cannot send.
          finish(failure(`invalid request (${codeOf(error) ?? 'unknown error'})`));
          return;
        }
        pending = req;
        req.on('response', (res) => {
          response = res;
          answer = answerTo(res);
          const end = () => finish(answer ?? failure('no answer'));
          let received = 0;
          res.on('data', (chunk: Buffer) => {
            received += chunk.length;
            if (received > MAX_RESPONSE_BODY_BYTES) res.destroy();
          });
          res.on('end', end);
          res.on('close', end);
          res.on('error', end);
        });
        req.on('error', (error) => {
          if (answer !== undefined) return; // the response's own events finish
          // A kept-alive connection the receiver closed just as we reused it: once more, on a new one.
          if (!retried && req.reusedSocket && codeOf(error) === 'ECONNRESET' && !settled) {
            post(target, true);
            return;
          }
          finish(failure(describeError(error, url.origin)));
        });
        req.end(request.body, 'utf8');
      };

      resolveWebhookAddress(url, this.#policy, this.#lookup).then(
        (resolved) => {
          if (settled) return;
          if (E.isLeft(resolved)) finish(failure(`URL refused: ${resolved.left}`));
          else post(resolved.right, false);
        },
        () => finish(failure(`could not resolve ${url.hostname}`)),
      );
    });
  }

  /** Destroys idle keep-alive sockets; in-flight sends finish. */
  close(): void {
    this.#closed = true;
    for (const agent of [this.#http, this.#https]) {
      for (const sockets of Object.values(agent.freeSockets)) for (const socket of sockets ?? []) socket.destroy();
    }
  }

  #request(url: URL, target: CheckedAddress, request: AttemptRequest): http.ClientRequest {
    const secure = url.protocol === 'https:';
    const options: https.RequestOptions = {
      // The checked IP itself: net.connect does no lookup for an IP.
      host: target.address,
      family: target.family,
      port: url.port === '' ? (secure ? 443 : 80) : Number(url.port),
      method: 'POST',
      path: `${url.pathname}${url.search}`,
      headers: {
        ...request.headers,
        host: url.host,
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(request.body, 'utf8'),
      },
      agent: secure ? this.#https : this.#http,
    };
    if (!secure) return http.request(options);
    // SNI and the certificate check use the host name; an IP-literal URL sends no SNI (RFC 6066) and is checked against the IP.
    const hostname = url.hostname.endsWith('.') ? url.hostname.slice(0, -1) : url.hostname;
    options.servername = url.hostname.startsWith('[') || isIP(hostname) !== 0 ? '' : hostname;
    return https.request(options);
  }
}
