import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchConfig, StoreName } from './config.js';
import type { ScenarioKind } from './scenarios.js';
import { freePort } from './processes.js';
import {
  addWebhookEndpoint,
  createToken,
  startCeiling,
  startPeer,
  startPlantServer,
  startWebhookReceiver,
  type PeerName,
  type RunningServer,
} from './servers.js';
import { SEARCH_NAMES } from './search-pages.js';
import { createPgDatabase, preloadPostgres, preloadSqlite, searchBacklog } from './stores.js';
import { tagSql } from './tag-pages.js';
import { TRACED, tracedPlan, type TracedPlanOptions } from './traced-plan.js';
import { SAMPLE_ALL, SAMPLE_RATIO, withoutOtel, type TraceProbe } from './trace-export.js';
import { createWebhookProbe, type WebhookProbe } from './webhook-drain.js';

/**
 * What the ceiling, `sqlite FULL`, `postgres` and `fastify postgres` run: every scenario but the
 * tag page, which has stores of its own, and the 1-connection get and create+delete.
 */
const ALL: readonly ScenarioKind[] = ['create', 'create-delete', 'get', 'patch', 'list', 'latency'];
/** What `sqlite FULL` and `postgres` run: ALL, and arrays of creates (POST /plants/batch, issue 56). */
const OURS: readonly ScenarioKind[] = [...ALL, 'create-batch'];
/** `sqlite NORMAL`: create and create+delete with 50 connections and one, get with one. */
const SQLITE_NORMAL: readonly ScenarioKind[] = ['create', 'create-delete', 'latency', 'create-delete-1', 'get-1'];
/** The SQLite peers run what every SQLite row of ours runs, so each of those rows has its peer's and the floor's figure. */
const SQLITE_PEER: readonly ScenarioKind[] = [...ALL, 'create-delete-1', 'get-1'];
/** The tagged stores: the tag page, the searched and sorted pages, and the counts. */
const TAGGED: readonly ScenarioKind[] = [
  'list-tag',
  'list-name',
  'list-name-desc',
  'list-id-desc',
  'list-q',
  'count',
  'count-tag',
];

/** A started server; `cleanup` stops it and removes its files or drops its database. */
export interface Launched {
  readonly server: RunningServer;
  /** The first id no plant has (ids below it were preloaded). */
  readonly firstFreeId: number;
  /**
   * Plants the store already holds, which the bench then does not seed over HTTP (the tagged
   * stores: every plant was written before the server started).
   */
  readonly seeded?: { readonly from: number; readonly to: number };
  readonly cleanup: () => Promise<void>;
  /** For a server with a webhook endpoint: the outbox read around each run (its drain after the load). */
  readonly webhooks?: WebhookProbe;
  /** For a traced server: its OTLP sink read around each run. */
  readonly traces?: TraceProbe;
  /** SQLite: how many plants wait for the search index now (read after a create load: its catch-up). */
  readonly searchBacklog?: () => number | undefined;
}

/** One row group of the table: a store, the scenarios it runs, how to start it. */
export interface Plan {
  readonly name: StoreName;
  readonly label: string;
  readonly scenarios: readonly ScenarioKind[];
  /** The load sends every create with its own `Idempotency-Key`, in this order (default: none). */
  readonly idempotencyKeys?: 'ordered' | 'random';
  /** A tagged store (src/tag-pages.ts) of plants `1…size`: what `list-tag` pages through. */
  readonly tagged?: { readonly size: number };
  /** Resolves to a printable reason instead when the store is unavailable (PostgreSQL down). */
  start(): Promise<Launched | string>;
}

export interface PlanContext {
  /** A temporary directory the stores' files go in. */
  readonly work: string;
  readonly serverCore: number | undefined;
  /** Where the webhook receiver runs (a core of its own, or the load generator's on 2 cores). */
  readonly receiverCore: number | undefined;
  readonly profileDir: string | undefined;
  readonly log: (line: string) => void;
  readonly warn: (line: string) => void;
  readonly notes: Record<string, unknown>;
  readonly skipped: string[];
}

/**
 * How long the outbox may take to drain after a run's load before the bench moves on (the target
 * is 5 s; past this the row says how many deliveries were left).
 */
export const DRAIN_LIMIT_SECONDS = 60;
/** How often the drain is read (the drain time's resolution). */
const DRAIN_POLL_MS = 100;

/**
 * How long a helper process (webhook receiver, OTLP sink) may live: past every run that could
 * happen (each rerun, every side-by-side run, each followed by a full drain), so that it stops by
 * itself only if the bench failed to stop it.
 */
export const helperLifetimeSeconds = (config: BenchConfig): number => {
  const runs =
    config.rounds * config.scenarios.length * config.stores.length * 2 + config.sideBySide * config.stores.length * 2;
  return runs * (config.warmupSeconds + config.seconds + DRAIN_LIMIT_SECONDS + 5) + 600;
};

export const compact = (n: number): string =>
  n >= 1e6 ? `${+(n / 1e6).toFixed(1)}M` : n >= 1e3 ? `${+(n / 1e3).toFixed(1)}k` : String(n);

/** The URL without its password, for printing. */
export const redact = (url: string): string => {
  try {
    const u = new URL(url);
    if (u.password !== '') u.password = '***';
    return u.toString();
  } catch {
    return '(unparseable URL)';
  }
};

/** The stores `config.stores` names, in the table's order. */
export const planStores = (config: BenchConfig, ctx: PlanContext): Plan[] => {
  const { work, serverCore, receiverCore, profileDir, log, warn, notes } = ctx;
  const profile = profileDir === undefined ? {} : { cpuProfileDir: profileDir };

  // No OTEL_* from the bench's own environment: only the traced rows trace, each to its sink.
  const serverEnv = (databaseUrl: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
    ...withoutOtel(process.env),
    NODE_ENV: 'production',
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: config.logLevel,
    ...extra,
  });

  /** Records how long a preload took, by row label, for the JSON results. */
  const notePreload = (label: string, rows: number, ms: number): void => {
    const preloads = (notes['preloads'] ?? {}) as Record<string, { readonly rows: number; readonly ms: number }>;
    notes['preloads'] = { ...preloads, [label]: { rows, ms } };
    log(`${label}: preloaded ${rows.toLocaleString('en-US')} plants in ${(ms / 1000).toFixed(1)} s`);
  };

  interface SqliteOptions {
    /** Plants `1…preload` written straight into the file before the server starts. */
    readonly preload?: number;
    /** Preloaded plants carry the tags of src/tag-pages.ts (else all `preloaded`), and are not seeded again. */
    readonly tagged?: boolean;
    /** Another build's `apps/server` (BENCH_BASELINE_DIR). */
    readonly serverDir?: string;
    readonly extraEnv?: Readonly<Record<string, string>>;
    /** Runs once the schema exists, before the server starts (registers webhook endpoints…). */
    readonly prepare?: (env: NodeJS.ProcessEnv) => Promise<void>;
  }

  const sqlitePlan = (
    name: StoreName,
    label: string,
    synchronous: 'FULL' | 'NORMAL',
    scenarios: readonly ScenarioKind[],
    { preload = 0, tagged = false, serverDir, extraEnv = {}, prepare }: SqliteOptions = {},
  ): Plan => ({
    name,
    label,
    scenarios,
    ...(tagged ? { tagged: { size: preload } } : {}),
    start: async () => {
      const dir = join(work, name);
      const file = join(dir, 'plant-store.db');
      mkdirSync(dir, { recursive: true });
      const env = serverEnv(`sqlite:${file}`, { SQLITE_SYNCHRONOUS: synchronous, ...extraEnv });
      // The CLI also creates the schema, which the preload fills.
      const token = await createToken(env, warn, serverDir);
      if (preload > 0) {
        log(`${label}: preloading ${preload.toLocaleString('en-US')} plants into the SQLite file…`);
        notePreload(
          label,
          preload,
          tagged ? preloadSqlite(file, preload, tagSql, SEARCH_NAMES) : preloadSqlite(file, preload),
        );
      }
      await prepare?.(env);
      const server = await startPlantServer({
        core: serverCore,
        env,
        token,
        ...profile,
        ...(serverDir === undefined ? {} : { serverDir }),
      });
      const backlog = searchBacklog(file);
      return {
        server,
        firstFreeId: preload + 1,
        ...(tagged ? { seeded: { from: 1, to: preload } } : {}),
        searchBacklog: backlog.read,
        cleanup: async () => {
          backlog.close();
          await server.stop();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  });

  /**
   * A fresh PostgreSQL database for `launch` (given its URL), dropped if the launch fails and
   * after its server stops; a printable skip when PostgreSQL is unreachable.
   */
  const onFreshDatabase = async (
    label: string,
    launch: (url: string) => Promise<Omit<Launched, 'cleanup'>>,
  ): Promise<Launched | string> => {
    const db = await createPgDatabase(config.pgAdminUrl);
    if (typeof db === 'string') return `${label}: skipped, not reachable at ${redact(config.pgAdminUrl)} (${db})`;
    const drop = (): Promise<void> =>
      db.drop().catch((e: unknown) => warn(`${label}: could not drop ${db.name}: ${String(e)}`));
    try {
      const launched = await launch(db.url);
      return {
        ...launched,
        cleanup: async () => {
          await launched.server.stop();
          await drop();
        },
      };
    } catch (error) {
      await drop();
      throw error;
    }
  };

  interface PostgresOptions {
    /** Plants `1…tagged`, tagged as src/tag-pages.ts says, written by SQL before the server starts. */
    readonly tagged?: number;
    /** Another build's `apps/server` (BENCH_BASELINE_DIR). */
    readonly serverDir?: string;
    readonly extraEnv?: Readonly<Record<string, string>>;
  }

  /** Our server (or another build's) on a fresh database. */
  const postgresPlan = (
    name: StoreName,
    label: string,
    scenarios: readonly ScenarioKind[],
    { tagged, serverDir, extraEnv = {} }: PostgresOptions = {},
  ): Plan => ({
    name,
    label,
    scenarios,
    ...(tagged === undefined ? {} : { tagged: { size: tagged } }),
    start: () =>
      onFreshDatabase(label, async (url) => {
        const env = serverEnv(url, extraEnv);
        // The CLI also creates the schema, which the preload fills.
        const token = await createToken(env, warn, serverDir);
        if (tagged !== undefined) {
          log(`${label}: preloading ${tagged.toLocaleString('en-US')} plants into ${new URL(url).pathname.slice(1)}…`);
          notePreload(label, tagged, await preloadPostgres(url, tagged, tagSql, SEARCH_NAMES));
        }
        const server = await startPlantServer({
          core: serverCore,
          env,
          token,
          ...profile,
          ...(serverDir === undefined ? {} : { serverDir }),
        });
        return {
          server,
          firstFreeId: (tagged ?? 0) + 1,
          ...(tagged === undefined ? {} : { seeded: { from: 1, to: tagged } }),
        };
      }),
  });

  /**
   * The SQLite FULL server with one webhook endpoint, subscribed to every event, at a receiver
   * answering 204 at once (its own process, on `receiverCore`): each create then also writes a
   * delivery in its transaction, and the dispatcher POSTs it. The server's metrics are on
   * (METRICS_PORT): the outbox is read from them around each run (metrics alone cost a create next
   * to nothing).
   */
  const webhookPlan = (name: StoreName, label: string, serverDir?: string): Plan => {
    const lifetimeSeconds = helperLifetimeSeconds(config);
    return {
      name,
      label,
      scenarios: ['create'],
      start: async () => {
        const receiver = await startWebhookReceiver(receiverCore, lifetimeSeconds);
        try {
          const metricsPort = await freePort();
          const env = {
            WEBHOOK_ALLOW_HTTP: 'true',
            WEBHOOK_ALLOW_PRIVATE: 'true',
            METRICS_HOST: '127.0.0.1',
            METRICS_PORT: String(metricsPort),
          };
          const launched = await sqlitePlan(name, label, 'FULL', ['create'], {
            extraEnv: env,
            prepare: (serverEnv) => addWebhookEndpoint(serverEnv, receiver.url, serverDir),
            ...(serverDir === undefined ? {} : { serverDir }),
          }).start();
          if (typeof launched === 'string') throw new Error(launched);
          log(
            `${label}: one webhook endpoint, ${receiver.url} (receiver pid ${receiver.pid}${receiverCore === undefined ? '' : `, core ${receiverCore}`})`,
          );
          return {
            ...launched,
            webhooks: createWebhookProbe({
              metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
              received: async () => (await receiver.stats())?.requests,
              limitSeconds: DRAIN_LIMIT_SECONDS,
              pollMs: DRAIN_POLL_MS,
            }),
            cleanup: async () => {
              await launched.cleanup();
              await receiver.stop();
            },
          };
        } catch (error) {
          await receiver.stop();
          throw error;
        }
      },
    };
  };

  /** A peer on a SQLite file of its own: `fastify sqlite NORMAL`, `koa minimal NORMAL`. */
  const sqlitePeerPlan = (name: StoreName & PeerName, label: string): Plan => ({
    name,
    label,
    scenarios: SQLITE_PEER,
    start: async () => {
      const dir = join(work, name);
      mkdirSync(dir, { recursive: true });
      const server = await startPeer(name, serverCore, join(dir, 'peer.db'));
      return {
        server,
        firstFreeId: 1,
        cleanup: async () => {
          await server.stop();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  });

  /** The PostgreSQL peer on a fresh database, dropped afterwards; skipped like `postgres` when PostgreSQL is down. */
  const postgresPeerPlan = (name: StoreName & PeerName, label: string): Plan => ({
    name,
    label,
    scenarios: ALL,
    start: () =>
      onFreshDatabase(label, async (url) => ({ server: await startPeer(name, serverCore, url), firstFreeId: 1 })),
  });

  /** `base` exporting its traces to an OTLP sink of its own (src/traced-plan.ts), on the receiver's core. */
  const traced = (name: StoreName, base: string, plan: TracedPlanOptions['plan']): Plan =>
    tracedPlan({
      name,
      base,
      sampling: name.endsWith('-ratio') ? SAMPLE_RATIO : SAMPLE_ALL,
      sinkCore: receiverCore,
      lifetimeSeconds: helperLifetimeSeconds(config),
      log,
      warn,
      notes,
      plan,
    });

  const [small, large] = config.tagSizes;
  const plans: Plan[] = [];
  for (const store of config.stores) {
    switch (store) {
      case 'ceiling':
        plans.push({
          name: store,
          label: 'ceiling',
          scenarios: ALL,
          start: async () => {
            const server = await startCeiling(serverCore);
            return { server, firstFreeId: 1, cleanup: () => server.stop() };
          },
        });
        break;
      case 'koa-minimal':
        plans.push(sqlitePeerPlan(store, 'koa minimal NORMAL'));
        break;
      case 'fastify-sqlite':
        plans.push(sqlitePeerPlan(store, 'fastify sqlite NORMAL'));
        break;
      case 'fastify-sqlite-async':
        // The same peer with an async hook and async handlers, as it was written before issue 34:
        // what they cost, measured side by side with the peer.
        plans.push(sqlitePeerPlan(store, 'fastify sqlite NORMAL async'));
        break;
      case 'fastify-postgres':
        plans.push(postgresPeerPlan(store, 'fastify postgres'));
        break;
      case 'sqlite':
        plans.push(sqlitePlan(store, 'sqlite FULL', 'FULL', OURS));
        break;
      case 'sqlite-baseline':
        if (config.baselineDir === undefined)
          ctx.skipped.push('sqlite-baseline: skipped, BENCH_BASELINE_DIR is not set');
        else plans.push(sqlitePlan(store, 'sqlite FULL baseline', 'FULL', ALL, { serverDir: config.baselineDir }));
        break;
      case 'sqlite-preloaded':
        if (config.preload === 0) ctx.skipped.push('sqlite-preloaded: skipped, BENCH_PRELOAD=0');
        else
          plans.push(
            sqlitePlan(store, `sqlite FULL +${compact(config.preload)}`, 'FULL', ['create'], {
              preload: config.preload,
            }),
          );
        break;
      case 'sqlite-normal':
        plans.push(sqlitePlan(store, 'sqlite NORMAL', 'NORMAL', SQLITE_NORMAL));
        break;
      case 'sqlite-metrics':
        // The same server with its Prometheus instrumentation on (METRICS_PORT=0: any free port).
        plans.push(
          sqlitePlan(store, 'sqlite FULL +metrics', 'FULL', ['create', 'get'], { extraEnv: { METRICS_PORT: '0' } }),
        );
        break;
      case 'sqlite-keyed':
        // The same server, loaded with creates that each carry an Idempotency-Key (the key's cost,
        // measured side by side with creates without one).
        plans.push({
          ...sqlitePlan(store, `sqlite FULL keyed (${config.keys})`, 'FULL', ['create']),
          idempotencyKeys: config.keys,
        });
        break;
      case 'sqlite-webhook':
        plans.push(webhookPlan(store, 'sqlite FULL +webhook'));
        break;
      case 'sqlite-webhook-baseline':
        if (config.baselineDir === undefined)
          ctx.skipped.push('sqlite-webhook-baseline: skipped, BENCH_BASELINE_DIR is not set');
        else plans.push(webhookPlan(store, 'sqlite FULL +webhook baseline', config.baselineDir));
        break;
      case 'sqlite-redis-down':
        // Rate limiting on, its counters in a Redis where nothing listens (port 1): every check
        // fails at once and the request is served unchecked. The limit is the highest allowed, so
        // a check that did reach a Redis would not refuse the load either.
        plans.push(
          sqlitePlan(store, 'sqlite FULL +redis down', 'FULL', ['get', 'latency'], {
            extraEnv: { RATE_LIMIT_PER_SECOND: '1000000', REDIS_URL: 'redis://127.0.0.1:1' },
          }),
        );
        break;
      case 'sqlite-traced':
      case 'sqlite-traced-ratio':
        plans.push(
          traced(store, 'sqlite FULL', (label, env) => sqlitePlan(store, label, 'FULL', TRACED, { extraEnv: env })),
        );
        break;
      case 'sqlite-tag-small':
      case 'sqlite-tag-large': {
        // The same tag page on a small and a large store (the large one measured as a variant of
        // the small one, side by side).
        const size = store === 'sqlite-tag-small' ? small : large;
        plans.push(sqlitePlan(store, `sqlite FULL ${compact(size)}`, 'FULL', TAGGED, { preload: size, tagged: true }));
        break;
      }
      case 'sqlite-tag-baseline':
        // Another build on the smaller tagged store, side by side with this build's.
        if (config.baselineDir === undefined)
          ctx.skipped.push('sqlite-tag-baseline: skipped, BENCH_BASELINE_DIR is not set');
        else
          plans.push(
            sqlitePlan(store, `sqlite FULL ${compact(small)} baseline`, 'FULL', TAGGED, {
              preload: small,
              tagged: true,
              serverDir: config.baselineDir,
            }),
          );
        break;
      case 'postgres':
        plans.push(postgresPlan(store, 'postgres', OURS));
        break;
      case 'postgres-baseline':
        if (config.baselineDir === undefined)
          ctx.skipped.push('postgres-baseline: skipped, BENCH_BASELINE_DIR is not set');
        else plans.push(postgresPlan(store, 'postgres baseline', ALL, { serverDir: config.baselineDir }));
        break;
      case 'postgres-traced':
      case 'postgres-traced-ratio':
        plans.push(traced(store, 'postgres', (label, env) => postgresPlan(store, label, TRACED, { extraEnv: env })));
        break;
      case 'postgres-tag-small':
      case 'postgres-tag-large': {
        const size = store === 'postgres-tag-small' ? small : large;
        plans.push(postgresPlan(store, `postgres ${compact(size)}`, TAGGED, { tagged: size }));
        break;
      }
      case 'postgres-tag-baseline':
        if (config.baselineDir === undefined)
          ctx.skipped.push('postgres-tag-baseline: skipped, BENCH_BASELINE_DIR is not set');
        else
          plans.push(
            postgresPlan(store, `postgres ${compact(small)} baseline`, TAGGED, {
              tagged: small,
              serverDir: config.baselineDir,
            }),
          );
        break;
    }
  }
  return plans;
};
