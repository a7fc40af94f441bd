#!/usr/bin/env node
import cluster from 'node:cluster';
import * as E from 'fp-ts/lib/Either.js';
import pino from 'pino';
import { AggregatorRegistry } from 'prom-client';
import { openStore } from './adapters/open-store.js';
import { createApp } from './app.js';
import { isShutdownMessage, startPrimary } from './cluster-primary.js';
import { configWarnings, decodeConfig, type Config } from './config.js';
import { createServer, limitConnections } from './http/server.js';
import { createLifecycle } from './lifecycle.js';
import { createLogger, type Logger } from './logger.js';
import { createMetrics } from './ops/metrics.js';
import { startMetricsServer } from './ops/metrics-server.js';
import { startRateLimitClusterMaster } from './rate-limit/local-backends.js';
import { createServerState } from './server-state.js';
import { drainOnce } from './shutdown.js';
import { ChangeHub } from './changes/change-hub.js';
import {
  countRequests,
  listen,
  listeningFields,
  listenUrl,
  prepareAuthentication,
  startDispatcher,
  startMetricsListener,
  startPurges,
  startRateLimiter,
  startTracing,
  watchOutbox,
} from './start-components.js';
import { step } from './start-step.js';
import { onStopSignals } from './stop-signals.js';
import { printFirstRunToken } from './tokens/first-run-token.js';
import { traceLogFields } from './tracing/log-fields.js';
import { traceStore } from './tracing/trace-store.js';
import type { Tracing } from './tracing/tracing.js';

/** Exits after the log is flushed (pino's asynchronous destination may hold buffered lines). */
const exit = (logger: Logger, code: number): void => {
  logger.flush(() => process.exit(code));
  setTimeout(() => process.exit(code), 2_000).unref();
};

/**
 * Opens the store, prepares authentication and serves: the single process, or one worker of
 * WORKERS=N. Each component joins the lifecycle as it starts; where the process is (starting,
 * cancelled, serving, stopping) is one state, moved only by server-state.ts: a stop request, the
 * end of start-up, a failed step. Entering `stopping` closes the components newest first: the HTTP
 * listener drains, then the dispatcher, the metrics listener, the purges, the rate limiter, the
 * store and, last, tracing (its final export).
 */
const serve = async (config: Config, logger: Logger, onTracing: (tracing: Tracing) => void): Promise<void> => {
  const lifecycle = createLifecycle(logger);
  const worker = cluster.isWorker ? cluster.worker : undefined;
  const state = createServerState({
    lifecycle,
    logger,
    shutdownTimeoutMs: config.shutdownTimeoutMs,
    exit: (code) => exit(logger, code),
  });
  if (worker !== undefined) {
    // The primary's graceful shutdown request. Not a signal: a worker already draining (it got the
    // terminal's SIGINT itself) takes it as the same request, never as a second "exit at once".
    process.on('message', (message: unknown) => {
      if (isShutdownMessage(message)) state.requestStop('ipc');
    });
  }

  try {
    const metrics = config.metrics === undefined ? undefined : createMetrics({ store: config.storeLocation.kind });
    const tracing = await startTracing(config, logger, metrics, lifecycle);
    if (tracing !== undefined) onTracing(tracing);
    state.checkpoint();
    // The store wakes the dispatcher after a commit that wrote deliveries (SQLite; PostgreSQL is
    // polled); the dispatcher starts after the store, so until then this does nothing.
    let wakeDispatcher = (): void => undefined;
    const store = await step('could not open the store', () =>
      openStore(config.storeLocation, {
        synchronous: config.sqliteSynchronous,
        idempotencyTtlSeconds: config.idempotencyTtlSeconds,
        onEvents: () => wakeDispatcher(),
        logger,
        ...config.postgres,
        ...(metrics === undefined && tracing === undefined
          ? {}
          : { observer: { ...metrics?.store, ...(tracing === undefined ? {} : { tracing }) } }),
      }),
    );
    lifecycle.add('store', () => store.close());
    // What requests see: with tracing on, each operation in a span of its own.
    const served = tracing === undefined ? store : traceStore(store, tracing, config.storeLocation.kind);

    const { auth, newToken } = await step('could not prepare authentication', () =>
      prepareAuthentication(config, served, worker?.id),
    );
    state.checkpoint();

    const rateLimiter = await startRateLimiter(config, logger, metrics, lifecycle);
    state.checkpoint();

    startPurges(config, store, logger, lifecycle);
    if (metrics !== undefined) watchOutbox(metrics, store);

    // One reader of the change log for every stream and long poll of this process; its own reads
    // are background work, outside any request's trace.
    const changeHub = new ChangeHub(store.changes);
    const app = createApp({
      store: served,
      changeHub,
      changes: { ...config.changes, retentionMs: config.changesRetentionMs },
      auth,
      logger,
      bodyLimitBytes: config.bodyLimitBytes,
      bulkBodyLimitBytes: config.bulkBodyLimitBytes,
      idempotencyTtlSeconds: config.idempotencyTtlSeconds,
      isShuttingDown: state.isShuttingDown,
      rateLimiter,
      corsOrigins: config.corsOrigins,
      metrics,
      tracing,
    });
    await startMetricsListener(config, metrics, worker !== undefined, logger, lifecycle);
    state.checkpoint();

    const server = createServer(app, logger, {
      headersTimeoutMs: config.headersTimeoutMs,
      requestTimeoutMs: config.requestTimeoutMs,
    });
    limitConnections(server, logger);
    const dispatcher = startDispatcher(config, store, logger, metrics, tracing, countRequests(server), lifecycle);
    wakeDispatcher = () => dispatcher.wake();
    // From here on SIGTERM and SIGINT stop gracefully; before, Node's default ends the process.
    onStopSignals(state.requestStop, (signal) => {
      logger.warn({ signal }, 'second signal: exiting at once');
      exit(logger, 1);
    });
    await step('could not listen', () => listen(server, config.port, config.host, logger));
    // Streams and long polls end at the start of the drain, not at its deadline: their clients move on.
    const drain = drainOnce({
      server,
      logger,
      timeoutMs: config.shutdownTimeoutMs,
      beginShutdown: () => changeHub.close(),
    });
    lifecycle.add('HTTP listener', async () => {
      await drain();
    });

    const url = listenUrl(server, config);
    logger.info(listeningFields(config, url), 'listening');
    // Request lines go out in chunks (logger.ts); the start-up lines at once, for whoever waits for them.
    logger.flush();
    if (newToken !== undefined) printFirstRunToken(newToken, url);
    // Start-up is over: `serving`, or, if a stop was requested meanwhile, `stopping` from now.
    state.listening({ drain });
  } catch (err) {
    state.startEnded(err);
  }
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
    const traceFields = traceLogFields();
    const logger = createLogger({
      level: config.logLevel,
      mixin: config.tracing === undefined ? undefined : traceFields.mixin,
    });
    if (cluster.isPrimary) warn(logger);
    return serve(
      config,
      cluster.isWorker ? logger.child({ role: 'worker', worker: cluster.worker?.id }) : logger,
      traceFields.bind,
    );
  }

  // WORKERS=N: this process only supervises; every worker opens its own store and pool. Its few
  // lines are written synchronously (unless pretty-printed), so that the last ones cannot be
  // overtaken at exit by an asynchronous write still in flight.
  const logger = createLogger({
    level: config.logLevel,
    ...(process.stdout.isTTY === true ? {} : { destination: pino.destination({ dest: 1, sync: true }) }),
  }).child({ role: 'primary' });
  warn(logger);
  // Its own components (the metrics listener) close once every worker has exited.
  const lifecycle = createLifecycle(logger);
  // RATE_LIMIT_STORE=cluster: the workers' counters live here, asked over IPC.
  if (config.rateLimit?.store === 'cluster') startRateLimitClusterMaster();
  const primary = startPrimary({
    cluster,
    workers: config.workers,
    logger,
    exit: (code) => void lifecycle.closeAll().then((closed) => exit(logger, closed ? code : 1)),
  });
  if (config.metrics !== undefined) {
    const aggregator = new AggregatorRegistry();
    startMetricsServer(
      { contentType: aggregator.contentType, metrics: () => aggregator.clusterMetrics() },
      config.metrics.host,
      config.metrics.port,
    ).then(
      (started) => {
        logger.info({ url: started.url }, 'metrics listening (all workers)');
        lifecycle.add('metrics server', () => started.close());
      },
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
