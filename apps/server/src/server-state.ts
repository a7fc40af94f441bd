import type { Lifecycle } from './lifecycle.js';
import type { Logger } from './logger.js';
import type { ShutdownOutcome } from './shutdown.js';
import { StartFailed } from './start-step.js';

/** What asked the process to stop: a signal it got, or its cluster primary over IPC. */
export type StopReason = NodeJS.Signals | 'ipc';

/** The HTTP listener once it listens. Its drain runs once, however often it is asked for. */
export interface Listener {
  readonly drain: () => Promise<ShutdownOutcome>;
}

/** How the process ends once every component closed: a stop (the drain's outcome) or a failed start. */
export type Ending =
  | { readonly kind: 'stop' }
  | { readonly kind: 'failure'; readonly message: string; readonly err: unknown; readonly fields: object };

/**
 * The one state of a serving process (the single process, or one worker of WORKERS=N):
 *
 * - `starting`: components start one by one, each joining the lifecycle;
 * - `cancelled`: asked to stop while starting; start-up ends at its next checkpoint (or, when the
 *   request came during `listen`, once it listens);
 * - `serving`: listening, with the listener that drains at a stop;
 * - `stopping`: the lifecycle closes every component, newest first (the listener's drain first, the
 *   store last), then the process ends as `ending` says. A failed start ends here too.
 *
 * /readyz answers 503 and responses say `Connection: close` in `cancelled` and `stopping`.
 */
export type ServerState =
  | { readonly phase: 'starting' }
  | { readonly phase: 'cancelled' }
  | { readonly phase: 'serving'; readonly listener: Listener }
  | { readonly phase: 'stopping'; readonly listener: Listener | undefined; readonly ending: Ending };

/** The events that move a server's state; every transition is in createServerState. */
export interface ServerTransitions {
  readonly current: () => ServerState;
  /** From the first stop request (or a failed start) on. */
  readonly isShuttingDown: () => boolean;
  /** A signal (the first this process got) or the primary's request; the same request again is one. */
  readonly requestStop: (reason: StopReason) => void;
  /** Between start-up steps, once what the last one started is in the lifecycle: throws when cancelled. */
  readonly checkpoint: () => void;
  /** Start-up is over: the listener listens and is in the lifecycle. */
  readonly listening: (listener: Listener) => void;
  /** What start-up threw: a failed step (StartFailed), the checkpoint's stop, or a defect. */
  readonly startEnded: (thrown: unknown) => void;
}

export interface ServerStateDeps {
  readonly lifecycle: Lifecycle;
  readonly logger: Logger;
  /** The drain's bound, said in the `shutting down` line. */
  readonly shutdownTimeoutMs: number;
  /** Ends the process with this code (after the log is flushed). */
  readonly exit: (code: number) => void;
}

/** Thrown by the checkpoint: start-up stops, and the process ends as a stop. */
const CANCELLED = Symbol('stop requested while starting');

const STOP: Ending = { kind: 'stop' };

const endingOf = (thrown: unknown): Ending => {
  if (thrown === CANCELLED) return STOP;
  if (thrown instanceof StartFailed)
    return { kind: 'failure', message: thrown.message, err: thrown.cause, fields: thrown.fields };
  return { kind: 'failure', message: 'could not start', err: thrown, fields: {} };
};

/**
 * A serving process's state, starting in `starting`:
 *
 * | from        | requestStop          | listening           | startEnded                      |
 * | ----------- | -------------------- | ------------------- | ------------------------------- |
 * | `starting`  | `cancelled`          | `serving`           | `stopping` (a failure)          |
 * | `cancelled` | stays (one request)  | `stopping` (a stop) | `stopping` (a stop or failure)  |
 * | `serving`   | `stopping` (a stop)  | a defect            | `stopping` (a failure)          |
 * | `stopping`  | stays (one request)  | a defect            | stays                           |
 *
 * Entering `stopping` closes the lifecycle once; its last line and exit code follow from `ending`
 * (a stop: `stopped` with the drain's outcome, 0 when drained; a failure: its fatal line, 1).
 */
export const createServerState = ({
  lifecycle,
  logger,
  shutdownTimeoutMs,
  exit,
}: ServerStateDeps): ServerTransitions => {
  let state: ServerState = { phase: 'starting' };

  const exitCode = async (closed: boolean, listener: Listener | undefined, ending: Ending): Promise<number> => {
    if (ending.kind === 'failure') {
      logger.fatal({ err: ending.err, ...ending.fields }, ending.message);
      return 1;
    }
    if (!closed) {
      logger.fatal('shutdown failed');
      return 1;
    }
    // The drain already ran (the lifecycle's newest closer): this reads its outcome.
    const outcome = listener === undefined ? 'drained' : await listener.drain();
    logger.info({ outcome }, 'stopped');
    return outcome === 'drained' ? 0 : 1;
  };

  /** The one way into `stopping`, and so the one call of closeAll. */
  const stop = (listener: Listener | undefined, ending: Ending): void => {
    state = { phase: 'stopping', listener, ending };
    void lifecycle.closeAll().then(async (closed) => exit(await exitCode(closed, listener, ending)));
  };

  const requestStop = (reason: StopReason): void => {
    switch (state.phase) {
      case 'starting':
        // Asked to stop before the server exists (a worker told by its primary while starting).
        state = { phase: 'cancelled' };
        logger.info({ reason }, 'shutdown requested while starting');
        return;
      case 'serving':
        logger.info({ reason, timeoutMs: shutdownTimeoutMs }, 'shutting down');
        logger.flush();
        return stop(state.listener, STOP);
      case 'cancelled':
      case 'stopping':
        // The same request again (the primary's IPC request and the terminal's SIGINT both come
        // from one Ctrl-C, in either order).
        logger.debug({ reason }, 'shutdown already in progress');
        return;
    }
  };

  const listening = (listener: Listener): void => {
    switch (state.phase) {
      case 'starting':
        state = { phase: 'serving', listener };
        return;
      case 'cancelled':
        return stop(listener, STOP);
      case 'serving':
      case 'stopping':
        throw new TypeError(`listening while ${state.phase}: start-up runs once`);
    }
  };

  const startEnded = (thrown: unknown): void => {
    switch (state.phase) {
      case 'starting':
      case 'cancelled':
        return stop(undefined, endingOf(thrown));
      case 'serving':
        return stop(state.listener, endingOf(thrown));
      case 'stopping':
        return;
    }
  };

  return {
    current: () => state,
    isShuttingDown: () => state.phase === 'cancelled' || state.phase === 'stopping',
    requestStop,
    checkpoint: () => {
      if (state.phase === 'cancelled') throw CANCELLED;
    },
    listening,
    startEnded,
  };
};
