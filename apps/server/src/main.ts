#!/usr/bin/env node
import cluster from 'node:cluster';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import * as E from 'fp-ts/lib/Either.js';
import pino from 'pino';
import { AggregatorRegistry } from 'prom-client';
import { startKeyPurge } from './adapters/idempotency-purge.js';
import { openRateLimiter } from './adapters/open-rate-limiter.js';
import { openStore } from './adapters/open-store.js';
import { createApp } from './app.js';
import { isShutdownMessage, startPrimary } from './cluster-primary.js';
import { configWarnings, decodeConfig, type Config } from './config.js';
import { createServer, limitConnections, logAcceptErrors } from './http/server.js';
import { createLogger, type Logger } from './logger.js';
import { createMetrics, type Metrics } from './ops/metrics.js';
import { startMetricsServer } from './ops/metrics-server.js';
import type { Store } from './ports/store.js';
import { SCOPES } from './ports/token-store.js';
import { startRateLimitClusterMaster } from './rate-limit/local-backends.js';
import type { RateLimiter, RateLimiterHooks } from './rate-limit/rate-limiter.js';
import { shutdownGracefully } from './shutdown.js';
import { issueToken } from './tokens/issue-token.js';
import { createJwtAuthenticator } from './tokens/jwt-authenticator.js';
import type { Authenticator } from './tokens/principal.js';
import { createTokenAuthenticator } from './tokens/token-authenticator.js';
import { WebhookDispatcher } from './webhooks/dispatcher.js';
import { startRetentionPurge } from './webhooks/retention-purge.js';
import { webhookUserAgent } from './webhooks/user-agent.js';
import { WebhookSender } from './webhooks/webhook-sender.js';

/** Exits after the log is flushed (pino's asynchronous destination may hold buffered lines). */
/** How often expired idempotency keys are looked for (each look forgets them in small steps). */
const KEY_PURGE_INTERVAL_MS = 60_000;

const exit = (logger: Logger, code: number): void => {
  logger.flush(() => process.exit(code));
  setTimeout(() => process.exit(code), 2_000).unref();
};

/**
 * Closes the store, then (after `closed`) exits with `code`; a store that fails to close is logged
 * and exits 1, never an unhandled rejection on the way out.
 */
const closeAndExit = (store: Store, logger: Logger, code: number, closed: () => void = () => {}): Promise<void> =>
  store.close().then(
    () => {
      closed();
      exit(logger, code);
    },
    (err: unknown) => {
      logger.error({ err }, 'could not close the store');
      exit(logger, 1);
    },
  );

/**
 * What the rate limiter reports besides its own throttled warning: each request refused (429) and
 * each check its store failed (the request was served unchecked). The metrics of issue 12 hook in here.
 */
const rateLimitHooks = (logger: Logger, metrics: Metrics | undefined): Required<RateLimiterHooks> => ({
  onLimited: (backend) => logger.debug({ rateLimitStore: backend }, 'rate limited'),
  onStoreError: (backend) => {
    metrics?.rateLimitStoreError(backend);
    logger.debug({ rateLimitStore: backend }, 'rate limit check failed; served unchecked');
  },
});

const createAuthenticator = (config: Config, store: Store): Authenticator =>
  config.auth.mode === 'jwt' ? createJwtAuthenticator(config.auth) : createTokenAuthenticator(store.tokens, { seedToken: config.auth.seedToken });

/**
 * The quick start's first token: when the store holds none and PLANT_STORE_STATIC_TOKEN is unset,
 * create one with both scopes. Only its hash is stored; the secret goes to the terminal (stderr) once,
 * never to the structured log.
 */
const firstRunToken = async (config: Config, store: Store): Promise<string | undefined> => {
  if (config.auth.mode !== 'tokens' || config.auth.seedToken !== undefined) return undefined;
  const count = await store.tokens.count()();
  if (E.isLeft(count)) throw new Error('could not count the stored tokens', { cause: count.left.cause });
  if (count.right > 0) return undefined;
  const issued = await issueToken(store.tokens, { name: 'first-run', scopes: SCOPES, expiresAt: null })();
  if (E.isRight(issued)) return issued.right.token;
  // Another instance sharing the store (PostgreSQL) may have created it at the same moment.
  const recount = await store.tokens.count()();
  if (E.isRight(recount) && recount.right > 0) return undefined;
  throw new Error('could not store the first-run token', { cause: issued.left.cause });
};

const printFirstRunToken = (token: string, url: string): void => {
  process.stderr.write(
    [
      '',
      'Plant Store created its first token (name "first-run", scopes plants:read plants:write).',
      'It is shown only now; only its SHA-256 hash is stored. Keep it:',
      '',
      `    ${token}`,
      '',
      `Try it:  curl -H "Authorization: Bearer ${token}" ${url}/plants`,
      'Manage tokens with: pnpm tokens --help',
      '',
      '',
    ].join('\n'),
  );
};

/** Opens the store, prepares authentication and serves: the single process, or one worker of WORKERS=N. */
const serve = async (config: Config, logger: Logger): Promise<void> => {
  let shuttingDown = false;
  let onShutdownRequest: (reason: NodeJS.Signals | 'ipc') => void = (reason) => {
    // Asked to stop before the server exists (a worker told by its primary while starting).
    logger.info({ reason }, 'shutdown requested while starting');
    shuttingDown = true;
  };
  const worker = cluster.isWorker ? cluster.worker : undefined;
  if (worker !== undefined) {
    // The primary's graceful shutdown request. Not a signal: a worker already draining (it got the
    // terminal's SIGINT itself) takes it as the same request, never as a second "exit at once".
    process.on('message', (message: unknown) => {
      if (isShutdownMessage(message)) onShutdownRequest('ipc');
    });
  }

  const metrics = config.metrics === undefined ? undefined : createMetrics({ store: config.storeLocation.kind });
  // The store wakes the dispatcher after a commit that wrote deliveries (SQLite; PostgreSQL is polled).
  let wakeDispatcher = (): void => undefined;
  let store: Store;
  try {
    store = await openStore(config.storeLocation, {
      synchronous: config.sqliteSynchronous,
      idempotencyTtlSeconds: config.idempotencyTtlSeconds,
      onEvents: () => wakeDispatcher(),
      logger,
      ...config.postgres,
      ...(metrics === undefined ? {} : { observer: metrics.store }),
    });
  } catch (err) {
    logger.fatal({ err }, 'could not open the store');
    return exit(logger, 1);
  }

  let newToken: string | undefined;
  let auth: Authenticator;
  try {
    // With WORKERS=N only the first worker considers it (the others would race it for nothing).
    if (worker === undefined || worker.id === 1) newToken = await firstRunToken(config, store);
    auth = createAuthenticator(config, store);
  } catch (err) {
    logger.fatal({ err }, 'could not prepare authentication');
    return closeAndExit(store, logger, 1);
  }
  if (shuttingDown) return closeAndExit(store, logger, 0, () => logger.info({ outcome: 'drained' }, 'stopped'));

  let rateLimiter: RateLimiter | undefined;
  if (config.rateLimit !== undefined) {
    try {
      rateLimiter = await openRateLimiter({ config: config.rateLimit, storeLocation: config.storeLocation, logger, ...rateLimitHooks(logger, metrics) });
    } catch (err) {
      logger.fatal({ err, rateLimitStore: config.rateLimit.store }, 'could not open the rate limiter');
      return closeAndExit(store, logger, 1);
    }
  }
  const limiter = rateLimiter;
  let metricsServer: { close(): Promise<void> } | undefined;
  const keyPurge = startKeyPurge(store.plants, { intervalMs: KEY_PURGE_INTERVAL_MS, logger });
  const { webhooks } = config;
  // Counted for the dispatcher, which yields to requests when they keep the process busy.
  let requestsReceived = 0;
  const sender = new WebhookSender({ timeoutMs: webhooks.timeoutMs, policy: { allowHttp: webhooks.allowHttp, allowPrivate: webhooks.allowPrivate } });
  const dispatcher = new WebhookDispatcher({
    store: store.webhooks,
    sender,
    holder: `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`,
    schedule: webhooks.retrySchedule,
    timeoutMs: webhooks.timeoutMs,
    userAgent: webhookUserAgent(),
    requestsReceived: () => requestsReceived,
    logger,
    ...(metrics === undefined ? {} : { onAttempt: (kind: 'delivered' | 'retry' | 'failed') => metrics.webhookAttempt(kind) }),
  });
  wakeDispatcher = () => dispatcher.wake();
  const retentionPurge = startRetentionPurge(store.webhooks, { retentionMs: webhooks.retentionDays * 86_400_000, intervalMs: KEY_PURGE_INTERVAL_MS, logger });
  metrics?.watchOutbox(async () => {
    const backlog = await store.webhooks.backlog()();
    return E.isRight(backlog) ? backlog.right : undefined;
  });
  /**
   * The metrics listener, the purges, the dispatcher (its attempts in flight finish within the
   * shutdown bound, or go back to the store for another instance or the next start), the store,
   * then the limiter's client (it has nothing to flush: counters are written as they change).
   */
  const closeStores = async (): Promise<void> => {
    try {
      await metricsServer?.close();
      await keyPurge.stop();
      await retentionPurge.stop();
      const dispatched = await dispatcher.stop(Math.max(0, Math.min(config.shutdownTimeoutMs, webhooks.timeoutMs)));
      sender.close();
      logger.info({ outcome: dispatched }, 'webhook dispatcher stopped');
      await store.close();
    } finally {
      await limiter?.close().catch((err: unknown) => logger.warn({ err }, 'could not close the rate limiter'));
    }
  };
  const app = createApp({
    store,
    auth,
    logger,
    bodyLimitBytes: config.bodyLimitBytes,
    idempotencyTtlSeconds: config.idempotencyTtlSeconds,
    isShuttingDown: () => shuttingDown,
    rateLimiter,
    corsOrigins: config.corsOrigins,
    metrics,
  });
  if (metrics !== undefined && config.metrics !== undefined) {
    if (worker !== undefined) {
      // The primary serves the port and asks each worker for its figures (prom-client's cluster mode).
      new AggregatorRegistry();
      AggregatorRegistry.setRegistries([metrics.registry]);
    } else {
      try {
        const started = await startMetricsServer(metrics.registry, config.metrics.host, config.metrics.port);
        logger.info({ url: started.url }, 'metrics listening');
        metricsServer = started;
      } catch (err) {
        logger.fatal({ err }, 'could not listen for metrics');
        return closeAndExit(store, logger, 1);
      }
    }
  }
  const server = createServer(app, logger, { headersTimeoutMs: config.headersTimeoutMs, requestTimeoutMs: config.requestTimeoutMs });
  limitConnections(server, logger);
  server.on('request', () => {
    requestsReceived += 1;
  });
  dispatcher.start();
  // Before listening an error means no port (fatal); after, a failed accept (see logAcceptErrors).
  let listening = false;
  let listenFailed = false;
  const acceptError = logAcceptErrors(logger);
  server.on('error', (err: NodeJS.ErrnoException) => {
    if (listening) return acceptError(err);
    if (listenFailed) return;
    listenFailed = true;
    logger.fatal({ err }, 'could not listen');
    void closeAndExit(store, logger, 1);
  });
  server.listen(config.port, config.host, () => {
    listening = true;
    const address = server.address();
    const port = typeof address === 'object' && address !== null ? address.port : config.port;
    const host = config.host.includes(':') ? `[${config.host}]` : config.host;
    const url = `http://${host}:${port}`;
    logger.info(
      {
        url,
        auth: config.auth.mode,
        store: config.storeLocation.kind,
        // Never the REDIS_URL: it may carry a password.
        ...(config.rateLimit === undefined
          ? {}
          : { rateLimit: { perSecond: config.rateLimit.perSecond, burst: config.rateLimit.burst, store: config.rateLimit.store } }),
      },
      'listening',
    );
    // Request lines go out in chunks (logger.ts); the start-up lines at once, for whoever waits for them.
    logger.flush();
    if (newToken !== undefined) printFirstRunToken(newToken, url);
    newToken = undefined;
  });

  onShutdownRequest = (reason) => {
    if (shuttingDown) {
      // Already draining: the same request again (the primary's IPC request and the terminal's
      // SIGINT both come from one Ctrl-C, in either order).
      logger.debug({ reason }, 'shutdown already in progress');
      return;
    }
    logger.info({ reason, timeoutMs: config.shutdownTimeoutMs }, 'shutting down');
    logger.flush();
    shutdownGracefully({
      server,
      logger,
      timeoutMs: config.shutdownTimeoutMs,
      beginShutdown: () => {
        shuttingDown = true;
      },
      closeStore: closeStores,
    }).then(
      (outcome) => {
        logger.info({ outcome }, 'stopped');
        exit(logger, outcome === 'drained' ? 0 : 1);
      },
      (err: unknown) => {
        logger.fatal({ err }, 'shutdown failed');
        exit(logger, 1);
      },
    );
  };
  // Signals are counted, not requests: the second signal this process gets exits at once.
  let signals = 0;
  const onSignal = (signal: NodeJS.Signals): void => {
    signals += 1;
    if (signals === 1) return onShutdownRequest(signal);
    logger.warn({ signal }, 'second signal: exiting at once');
    exit(logger, 1);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
};

const main = async (): Promise<void> => {
  const decoded = decodeConfig(process.env);
  if (E.isLeft(decoded)) {
    process.stderr.write(`plant-store: ${decoded.left}\n`);
    process.exit(1);
  }
  const config = decoded.right;

  // Said once, by the single process or the primary (workers share its environment).
  const warn = (logger: Logger): void => {
    for (const warning of configWarnings(process.env)) logger.warn(warning);
  };

  if (config.workers === 1 || cluster.isWorker) {
    const logger = createLogger({ level: config.logLevel });
    if (cluster.isPrimary) warn(logger);
    return serve(config, cluster.isWorker ? logger.child({ role: 'worker', worker: cluster.worker?.id }) : logger);
  }

  // WORKERS=N: this process only supervises; every worker opens its own store and pool. Its few
  // lines are written synchronously (unless pretty-printed), so that the last ones cannot be
  // overtaken at exit by an asynchronous write still in flight.
  const logger = createLogger({
    level: config.logLevel,
    ...(process.stdout.isTTY === true ? {} : { destination: pino.destination({ dest: 1, sync: true }) }),
  }).child({ role: 'primary' });
  warn(logger);
  // RATE_LIMIT_STORE=cluster: the workers' counters live here, asked over IPC.
  if (config.rateLimit?.store === 'cluster') startRateLimitClusterMaster();
  const primary = startPrimary({ cluster, workers: config.workers, logger, exit: (code) => exit(logger, code) });
  if (config.metrics !== undefined) {
    const aggregator = new AggregatorRegistry();
    startMetricsServer(
      { contentType: aggregator.contentType, metrics: () => aggregator.clusterMetrics() },
      config.metrics.host,
      config.metrics.port,
    ).then(
      (started) => logger.info({ url: started.url }, 'metrics listening (all workers)'),
      (err: unknown) => {
        logger.fatal({ err }, 'could not listen for metrics');
        primary.shutdown('SIGTERM');
      },
    );
  }
  process.on('SIGTERM', primary.shutdown);
  process.on('SIGINT', primary.shutdown);
};

await main();
