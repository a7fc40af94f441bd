import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { promisify } from 'node:util';
import { parseResponse, type RawResponse } from './http.js';

/**
 * Descriptor exhaustion for the torture suites: a process's descriptor limit lowered from outside
 * (util-linux `prlimit`), its open descriptors counted (Linux `/proc`), a flood of TCP connections
 * held open, and keep-alive connections opened before the flood to ask on while it lasts.
 */

const run = promisify(execFile);

/**
 * Sets the soft and hard `RLIMIT_NOFILE` of the running process `pid` to `limit` (like `ulimit -n`
 * before its start; descriptors it holds stay open). Resolves with why it cannot, or undefined.
 */
export const limitDescriptors = async (pid: number, limit: number): Promise<string | undefined> => {
  try {
    await run('prlimit', [`--pid=${pid}`, `--nofile=${limit}:${limit}`]);
  } catch (err) {
    return `prlimit --pid=${pid} --nofile=${limit}:${limit} failed: ${(err as Error).message.split('\n')[0] ?? ''}`;
  }
  const { stdout } = await run('prlimit', [`--pid=${pid}`, '--nofile', '--output=SOFT,HARD', '--noheadings']);
  const [soft, hard] = stdout.trim().split(/\s+/).map(Number);
  return soft === limit && hard === limit ? undefined : `prlimit left the limit at ${stdout.trim()}`;
};

/** How many descriptors `pid` holds now (0 once it is gone). */
export const openDescriptors = (pid: number): number => {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return 0;
  }
};

/** One client connection kept open for sequential requests (HTTP/1.1 keep-alive), bytes exactly as given. */
export class KeepAliveConnection {
  private data = Buffer.alloc(0);
  private waiting: { method: string; resolve: (r: RawResponse) => void; reject: (e: Error) => void } | undefined;
  private closedBecause: string | undefined;

  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.data = Buffer.concat([this.data, chunk]);
      this.deliver();
    });
    socket.on('error', (err: NodeJS.ErrnoException) => (this.closedBecause ??= err.code ?? err.message));
    socket.on('close', () => {
      this.closedBecause ??= 'closed by the server';
      this.waiting?.reject(new Error(`connection ${this.closedBecause}`));
      this.waiting = undefined;
    });
  }

  static open(port: number, timeoutMs = 5_000): Promise<KeepAliveConnection> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port });
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new Error(`no connection to port ${port} within ${timeoutMs} ms`));
      }, timeoutMs);
      socket.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      socket.once('connect', () => {
        clearTimeout(timer);
        resolve(new KeepAliveConnection(socket));
      });
    });
  }

  /** Why the connection is gone, or undefined while it is open. */
  get closed(): string | undefined {
    return this.closedBecause;
  }

  /** Sends one request (which must not ask to close) and resolves with its response; rejects after `timeoutMs`. */
  request(
    method: string,
    path: string,
    headers: Record<string, string>,
    body?: string,
    timeoutMs = 5_000,
  ): Promise<RawResponse> {
    if (this.closedBecause !== undefined) return Promise.reject(new Error(`connection ${this.closedBecause}`));
    if (this.waiting !== undefined) return Promise.reject(new Error('one request at a time'));
    const length = body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) };
    const head = Object.entries({ host: '127.0.0.1', ...headers, ...length })
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    return new Promise<RawResponse>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting = undefined;
        reject(new Error(`no response to ${method} ${path} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiting = {
        method,
        resolve: (r) => {
          clearTimeout(timer);
          resolve(r);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      };
      this.socket.write(`${method} ${path} HTTP/1.1\r\n${head}\r\n${body ?? ''}`);
    });
  }

  close(): void {
    this.socket.destroy();
  }

  private deliver(): void {
    if (this.waiting === undefined) return;
    const response = parseResponse(this.data, this.waiting.method);
    if (response === undefined) return;
    // one response at a time, so whatever follows it belongs to none (a keep-alive server sends nothing more)
    this.data = Buffer.alloc(0);
    const { resolve } = this.waiting;
    this.waiting = undefined;
    resolve(response);
  }
}

export interface FloodCounts {
  readonly opened: number;
  /** The TCP handshake completed (accepted by the server, or waiting in its listen backlog). */
  readonly connected: number;
  /** Closed or reset by the server while we held them. */
  readonly closedByServer: number;
  /** Connects that failed, by error code. */
  readonly failed: Readonly<Record<string, number>>;
  /** Bytes any server sent on them (a partial request gets none until its headers time out). */
  readonly bytesReceived: number;
}

export interface Flood {
  counts(): FloodCounts;
  /** Destroys every socket of the flood. */
  close(): void;
}

/**
 * Opens `count` TCP connections to 127.0.0.1:`port` at once and keeps them open; every
 * `partialEvery`-th sends the start of a request and never finishes it. Nothing else is sent.
 */
export const openFlood = (port: number, count: number, partialEvery: number): Flood => {
  const sockets: Socket[] = [];
  let connected = 0;
  let closedByServer = 0;
  let bytesReceived = 0;
  let closing = false;
  const failed: Record<string, number> = {};
  for (let i = 0; i < count; i++) {
    const socket = connect({ host: '127.0.0.1', port });
    let up = false;
    socket.on('connect', () => {
      up = true;
      connected += 1;
      if (i % partialEvery === 0)
        socket.write(`GET /plants?limit=${(i % 1000) + 1} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Flood: ${i}\r\n`);
    });
    socket.on('data', (chunk: Buffer) => (bytesReceived += chunk.length));
    socket.on('error', (err: NodeJS.ErrnoException) => {
      if (!up) failed[err.code ?? err.message] = (failed[err.code ?? err.message] ?? 0) + 1;
    });
    socket.on('close', () => {
      if (up && !closing) closedByServer += 1;
    });
    sockets.push(socket);
  }
  return {
    counts: () => ({ opened: sockets.length, connected, closedByServer, failed: { ...failed }, bytesReceived }),
    close: () => {
      closing = true;
      for (const socket of sockets) socket.destroy();
    },
  };
};
