import http from 'node:http';
import { connect } from 'node:net';

export interface RawResponse {
  readonly status: number;
  readonly statusLine: string;
  /** Lower-cased header names; repeated headers keep every value. */
  readonly headers: ReadonlyMap<string, readonly string[]>;
  readonly body: Buffer;
}

export type RawOutcome =
  | { readonly kind: 'response'; readonly response: RawResponse }
  /** The server closed (or reset) the connection without a complete response. */
  | { readonly kind: 'closed'; readonly received: Buffer; readonly error: string | undefined }
  /** Nothing complete within the time bound (the socket is destroyed by us). */
  | { readonly kind: 'timeout'; readonly received: Buffer };

const headerEnd = Buffer.from('\r\n\r\n');

const dechunk = (data: Buffer): Buffer | undefined => {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = data.indexOf('\r\n', at);
    if (eol === -1) return undefined;
    const size = parseInt(data.subarray(at, eol).toString('latin1').split(';')[0] ?? '', 16);
    if (!Number.isInteger(size)) return undefined;
    if (size === 0) return data.length >= eol + 4 ? Buffer.concat(parts) : undefined;
    if (data.length < eol + 2 + size + 2) return undefined;
    parts.push(data.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
};

/** Parses one complete HTTP/1.1 response from `data`, or undefined while it is incomplete. */
export const parseResponse = (data: Buffer, requestMethod = 'GET', atEof = false): RawResponse | undefined => {
  const end = data.indexOf(headerEnd);
  if (end === -1) return undefined;
  const lines = data.subarray(0, end).toString('latin1').split('\r\n');
  const statusLine = lines[0] ?? '';
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? NaN);
  const headers = new Map<string, string[]>();
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim().toLowerCase();
    const list = headers.get(name) ?? [];
    list.push(line.slice(colon + 1).trim());
    headers.set(name, list);
  }
  const rest = data.subarray(end + 4);
  // an interim response (100 Continue) precedes the real one
  if (status >= 100 && status < 200 && status !== 101) return parseResponse(rest, requestMethod, atEof);
  let body: Buffer | undefined;
  const length = headers.get('content-length')?.[0];
  if (requestMethod === 'HEAD' || status === 204 || status === 304 || status === 101) body = Buffer.alloc(0);
  else if (headers.get('transfer-encoding')?.[0]?.toLowerCase() === 'chunked') body = dechunk(rest);
  else if (length !== undefined) body = rest.length >= Number(length) ? rest.subarray(0, Number(length)) : undefined;
  else body = atEof ? rest : undefined;
  return body === undefined ? undefined : { status, statusLine, headers, body };
};

/**
 * Sends `request` as raw bytes on a fresh TCP connection to 127.0.0.1:`port` and waits for one
 * complete response, the server closing the connection, or `timeoutMs`.
 */
export const rawExchange = (
  port: number,
  request: Buffer | string,
  timeoutMs = 10_000,
  method = 'GET',
): Promise<RawOutcome> =>
  new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    let data = Buffer.alloc(0);
    let settled = false;
    const settle = (outcome: RawOutcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(outcome);
    };
    const timer = setTimeout(() => settle({ kind: 'timeout', received: data }), timeoutMs);
    let error: string | undefined;
    socket.on('connect', () => socket.write(request));
    socket.on('data', (chunk: Buffer) => {
      data = Buffer.concat([data, chunk]);
      const response = parseResponse(data, method);
      if (response !== undefined) settle({ kind: 'response', response });
    });
    socket.on('error', (err: NodeJS.ErrnoException) => (error = err.code ?? err.message));
    socket.on('close', () => {
      const response = parseResponse(data, method, true);
      settle(response === undefined ? { kind: 'closed', received: data, error } : { kind: 'response', response });
    });
  });

export interface SimpleResponse {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

/** Why a request through `send` failed: before any response (unknown outcome) or with a truncated one. */
export class RequestFailed extends Error {
  constructor(
    readonly phase: 'no-response' | 'truncated',
    readonly code: string,
  ) {
    super(`${phase}: ${code}`);
  }
}

export interface SendOptions {
  readonly agent: http.Agent;
  readonly port: number;
  readonly method: string;
  readonly path: string;
  readonly headers?: http.OutgoingHttpHeaders;
  readonly body?: string | Buffer;
  readonly timeoutMs?: number;
}

/**
 * One request over node:http. Rejects with RequestFailed('no-response') when the connection failed
 * before a status line arrived (the request may or may not have landed) and with
 * RequestFailed('truncated') when a response started but its body did not complete.
 */
export const send = ({
  agent,
  port,
  method,
  path,
  headers = {},
  body,
  timeoutMs = 30_000,
}: SendOptions): Promise<SimpleResponse> =>
  new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, headers, agent, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('aborted', () => reject(new RequestFailed('truncated', 'aborted')));
      res.on('error', (err: NodeJS.ErrnoException) => reject(new RequestFailed('truncated', err.code ?? err.message)));
      res.on('end', () => {
        if (!res.complete) return reject(new RequestFailed('truncated', 'incomplete'));
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') });
      });
    });
    let responded = false;
    req.on('response', () => (responded = true));
    req.on('timeout', () => req.destroy(new Error('client timeout')));
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (!responded) reject(new RequestFailed('no-response', err.code ?? err.message));
    });
    req.end(body);
  });

/**
 * What is wrong with `response` as an error response of docs/reference/api.md (empty when nothing is):
 * `application/json` and exactly `{error: <the status>, message: <string>}`.
 */
export const errorBodyProblems = (status: number, contentType: string | undefined, body: string): string[] => {
  const problems: string[] = [];
  if (contentType === undefined || !/^application\/json\b/i.test(contentType))
    problems.push(`content-type ${String(contentType)}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return [...problems, `body is not JSON: ${JSON.stringify(body.slice(0, 200))}`];
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    return [...problems, `body is not an object: ${body.slice(0, 200)}`];
  const record = parsed as Record<string, unknown>;
  if (record['error'] !== status) problems.push(`error ${JSON.stringify(record['error'])} ≠ status ${status}`);
  if (typeof record['message'] !== 'string' || record['message'] === '')
    problems.push('message is not a non-empty string');
  const extra = Object.keys(record).filter((k) => k !== 'error' && k !== 'message');
  if (extra.length > 0) problems.push(`extra members ${extra.join(', ')}`);
  return problems;
};

/** The nearest-rank percentile `p` (0–100) of `samples`. */
export const percentile = (samples: readonly number[], p: number): number => {
  const sorted = [...samples].sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] as number;
};
