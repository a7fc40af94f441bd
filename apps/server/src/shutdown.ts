import type { Server } from 'node:http';
import type { Logger } from './logger.js';

export interface DrainDeps {
  readonly server: Server;
  readonly logger: Logger;
  /** Bound on waiting for in-flight requests; then the remaining connections are cut. */
  readonly timeoutMs: number;
  /** Called first, so that /readyz answers 503 from that moment. */
  readonly beginShutdown: () => void;
}

/** How a shutdown ended: every in-flight request finished, or the bound ran out and connections were cut. */
export type ShutdownOutcome = 'drained' | 'cut';

/**
 * Closes the HTTP listener gracefully: /readyz turns 503, the listener closes (no new
 * connections), idle keep-alive sockets close at once, in-flight requests finish and their sockets
 * close after the response (the app answers with `Connection: close` once `beginShutdown` ran),
 * bounded by `timeoutMs`. See docs/guides/operations.md.
 */
export const drainServer = async ({
  server,
  logger,
  timeoutMs,
  beginShutdown,
}: DrainDeps): Promise<ShutdownOutcome> => {
  beginShutdown();
  let outcome: ShutdownOutcome = 'drained';
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  // A response that finishes on a keep-alive socket leaves it idle: close those as they appear.
  const sweep = setInterval(() => server.closeIdleConnections(), 100);
  const bound = setTimeout(() => {
    outcome = 'cut';
    logger.warn({ timeoutMs }, 'shutdown timeout: closing the remaining connections');
    server.closeAllConnections();
  }, timeoutMs);
  try {
    await closed;
  } finally {
    clearInterval(sweep);
    clearTimeout(bound);
  }
  return outcome;
};

/**
 * drainServer, run at most once: the lifecycle runs it at a stop, and the last line reads its
 * outcome from the same promise.
 */
export const drainOnce = (deps: DrainDeps): (() => Promise<ShutdownOutcome>) => {
  let drained: Promise<ShutdownOutcome> | undefined;
  return () => (drained ??= drainServer(deps));
};
