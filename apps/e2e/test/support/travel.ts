import { spawn } from 'node:child_process';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fold, Plant } from '@plant-store/domain';
import { freshPostgresUrl, type FreshPostgres } from '@plant-store/testkit';
import { Webhook } from 'standardwebhooks';
import { expect } from 'vitest';
import { dataCli } from './data-cli.js';
import { paths } from './paths.js';
import { runNode, startServer, tempDir, type RunResult, type ServerProcess } from './processes.js';
import { createToken } from './token.js';

/*
 * Support for "a plant travels" (plant-travels.e2e.test.ts): a store with a running server, a
 * webhook receiver on 127.0.0.1, a second server on an empty store for `plant-store import`, and
 * fresh empty stores to import into and migrate to; and the bytes each path must give back,
 * written by the domain's encoder (docs/CONTRIBUTING.md).
 */

export type StoreKind = 'sqlite' | 'postgresql';

/** Webhooks to the local receiver over http, retried quickly when an attempt fails. */
const HOOKS = { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_SCHEDULE: '200ms,200ms,1s' };

export interface Delivery {
  readonly body: string;
  readonly headers: Record<string, string>;
}

export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: string;
}

/** `plant-store watch …` running: what it printed so far, and its end at Ctrl-C. */
export interface Watcher {
  /** The lines printed so far, each without its newline (an unfinished last line left out). */
  lines(): string[];
  /** Sends SIGINT (when it still runs) and resolves with its exit code and stderr. */
  stop(): Promise<{ code: number | null; stderr: string }>;
}

/** A `text/event-stream` answer, read as it arrives. */
export interface EventStream {
  /** The body so far, as the server wrote it. */
  text(): string;
  /** Leaves the stream (the client closes the connection) and waits for the reader to end. */
  stop(): Promise<void>;
}

/** A running server with a read-write token, and the ways the test talks to it. */
export interface Served {
  readonly server: ServerProcess;
  readonly token: string;
  /** A request to the server with the read-write token; the body is sent as it is. */
  call(method: string, path: string, body?: string, headers?: Record<string, string>): Promise<Answer>;
  /** `plant-store …` (the client CLI) against the server. */
  cli(args: readonly string[]): Promise<RunResult>;
  /** `plant-store watch …` against the server, running until stop(). */
  watch(args: readonly string[]): Watcher;
  /** `GET path` with `Accept: text/event-stream`, checked to answer 200 as a stream. */
  stream(path: string): Promise<EventStream>;
}

export interface TravelStore extends Served {
  readonly kind: StoreKind;
  readonly databaseUrl: string;
  readonly dir: string;
  /** What the receiver got, by `webhook-id` (duplicates dropped, as receivers do). */
  readonly deliveries: Map<string, Delivery>;
  /** The endpoint's signing secret. */
  readonly secret: string;
  /** A second server, on an empty store of the same kind without webhooks: where `plant-store import` writes. */
  readonly target: Served;
  /** The URL of a new, empty store of `kind`, dropped by close(). */
  fresh(kind: StoreKind): Promise<string>;
  close(): Promise<void>;
}

/** What talks to `server` with `token`: HTTP, the client CLI, its watch, an event stream. */
const serving = (server: ServerProcess, token: string): Served => {
  const env = { PLANT_STORE_URL: server.url, PLANT_STORE_TOKEN: token };
  const call: Served['call'] = async (method, path, body, headers = {}) => {
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...headers },
      ...(body === undefined ? {} : { body }),
    });
    return { status: response.status, headers: response.headers, body: await response.text() };
  };
  return {
    server,
    token,
    call,
    cli: (args) => runNode(paths.clientCli, args, env),
    watch: (args) => {
      const child = spawn(process.execPath, [paths.clientCli, 'watch', ...args], {
        env: { ...process.env, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      const closed = once(child, 'close') as Promise<[number | null]>;
      return {
        lines: () => stdout.split('\n').slice(0, -1),
        stop: async () => {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
          const [code] = await closed;
          return { code, stderr };
        },
      };
    },
    stream: async (path) => {
      const abort = new AbortController();
      const response = await fetch(`${server.url}${path}`, {
        headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
        signal: abort.signal,
      });
      const type = response.headers.get('content-type');
      if (response.status !== 200 || type !== 'text/event-stream' || response.body === null) {
        abort.abort();
        throw new Error(`GET ${path} as a stream answered ${response.status} ${type}`);
      }
      let text = '';
      const decoder = new TextDecoder();
      const body = response.body;
      // A read that fails while the stream is still wanted is stop()'s error, not an unhandled one.
      const reading = (async (): Promise<unknown> => {
        try {
          for await (const chunk of body) text += decoder.decode(chunk, { stream: true });
        } catch (error) {
          if (!abort.signal.aborted) return error;
        }
        return undefined;
      })();
      return {
        text: () => text,
        stop: async () => {
          abort.abort();
          const failure = await reading;
          if (failure !== undefined) throw failure;
        },
      };
    },
  };
};

/** Opens an empty store of `kind`, registers the receiver with the webhooks CLI, starts a server on it. */
export const openTravelStore = async (kind: StoreKind): Promise<TravelStore> => {
  const dir = await tempDir(`travel-${kind}`);
  const schemas: FreshPostgres[] = [];
  let files = 0;
  const fresh = async (of: StoreKind): Promise<string> => {
    if (of === 'sqlite') return `sqlite:${dir.path}/store-${++files}.db`;
    const schema = await freshPostgresUrl();
    schemas.push(schema);
    return schema.url;
  };
  const deliveries = new Map<string, Delivery>();
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      deliveries.set(headers['webhook-id'] ?? '', { body: Buffer.concat(chunks).toString('utf8'), headers });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/travel`;
  const databaseUrl = await fresh(kind);
  const token = await createToken(databaseUrl, 'travel');
  const added = await runNode(paths.webhooksCli, ['add', '--url', hookUrl], { DATABASE_URL: databaseUrl, ...HOOKS });
  if (added.code !== 0) throw new Error(`plant-store-webhooks add failed: ${added.stderr}`);
  const targetUrl = await fresh(kind);
  const [server, target] = await Promise.all([
    startServer({ DATABASE_URL: databaseUrl, ...HOOKS }),
    (async () => {
      const targetToken = await createToken(targetUrl, 'travel-import');
      return serving(await startServer({ DATABASE_URL: targetUrl }), targetToken);
    })(),
  ]);
  return {
    ...serving(server, token),
    kind,
    databaseUrl,
    dir: dir.path,
    deliveries,
    secret: added.stdout.trim(),
    target,
    fresh,
    close: async () => {
      await Promise.all([server.stop(), target.server.stop()]);
      receiver.closeAllConnections();
      await new Promise<void>((resolve) => receiver.close(() => resolve()));
      await Promise.all(schemas.map((s) => s.drop()));
      await dir.remove();
    },
  };
};

const byId = (a: Plant, b: Plant): number => a.id - b.id;

/** The bytes every path must give back for `plant`: the codec's encoding, members in declared order. */
export const bytesOf = (plant: Plant): string => JSON.stringify(Plant.encode(plant));
/**
 * The body of a 201: the plant's members but the id (it travels in `Location`), from Plant's
 * codec, not CreatePlantResponse's, so that a member that codec lacks is missed here, not skipped.
 */
export const createdBytesOf = (plant: Plant): string => {
  const { id: _id, ...members } = Plant.encode(plant);
  return JSON.stringify(members);
};
/** A page of `GET /plants`: the plants in id order. */
export const pageBytesOf = (plants: readonly Plant[]): string =>
  JSON.stringify([...plants].sort(byId).map((p) => Plant.encode(p)));
/** `export` of both CLIs: one plant per line, in id order. */
export const linesOf = (plants: readonly Plant[]): string =>
  [...plants]
    .sort(byId)
    .map((p) => `${bytesOf(p)}\n`)
    .join('');
/** The CLI's `--json`: the same members, indented by two spaces, then a newline. */
export const cliJsonOf = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;

/**
 * Parses JSON text a path wrote, checking that it is exactly what `JSON.stringify` writes for the
 * value (members in order, the same escapes): then a member's bytes are `JSON.stringify` of it.
 */
export const parseExact = (text: string): unknown => {
  const value: unknown = JSON.parse(text);
  expect(JSON.stringify(value), 'the JSON as written').toBe(text);
  return value;
};

/** What search (`q`) must answer: the plants whose folded name contains the folded text, in id order. */
export const searchBytesOf = (plants: readonly Plant[], q: string): string =>
  pageBytesOf(plants.filter((p) => fold(p.name).includes(fold(q))));

/** A search text cut from `name`: about its middle third, 3–100 code points; none when too short or blank. */
export const searchTextIn = (name: string): string | undefined => {
  const points = [...name];
  if (points.length < 3) return undefined;
  const length = Math.min(100, Math.max(3, Math.ceil(points.length / 3)));
  const start = Math.min(Math.floor(points.length / 3), points.length - length);
  const q = points.slice(start, start + length).join('');
  return /\S/u.test(q) ? q : undefined;
};

/**
 * What an event stream must write for `changes` (each as the JSON form of the feed wrote it, so
 * its bytes), after the reconnection delay: `id`, `event`, `data` and a blank line each.
 */
export const eventsOf = (changes: readonly { readonly seq: number; readonly type: string }[]): string =>
  `retry: 2000\n\n${changes.map((c) => `id: ${c.seq}\nevent: ${c.type}\ndata: ${JSON.stringify(c)}\n\n`).join('')}`;

/**
 * The events of a stream's `text` so far, heartbeats (`:` comment lines) left out: a change's
 * `data` is one line of JSON, which writes no raw line end, so a blank line ends an event.
 */
export const eventsIn = (text: string): string[] =>
  text
    .split('\n\n')
    .slice(0, -1)
    .filter((event) => !event.startsWith(':'))
    .map((event) => `${event}\n\n`);

/** Checks a delivery's signature and returns its payload, after checking its bytes are exact. */
export const verifiedPayload = (delivery: Delivery, secret: string): { type: string; data: unknown } => {
  new Webhook(secret).verify(delivery.body, delivery.headers);
  return parseExact(delivery.body) as { type: string; data: unknown };
};

/** `plant-store-data export` of the store at `url`, checked to succeed; its stdout. */
export const exported = async (url: string): Promise<string> => {
  const result = await dataCli(['export'], { DATABASE_URL: url });
  expect(result.stderr, `export of ${url}`).toBe('');
  expect(result.code).toBe(0);
  return result.stdout;
};

/** Runs `plant-store-data …` and checks it succeeded. */
export const data = async (args: readonly string[], env: Record<string, string> = {}): Promise<RunResult> => {
  const result = await dataCli(args, env);
  expect(result.code, `plant-store-data ${args[0]}: ${result.stderr}`).toBe(0);
  return result;
};
