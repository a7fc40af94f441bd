/** What a lifecycle logs: a closer that failed. */
export interface LifecycleLogger {
  error(obj: object, msg: string): void;
}

interface Closer {
  readonly name: string;
  readonly close: () => Promise<void> | void;
}

export interface Lifecycle {
  /**
   * Registers a started component's `close`; `name` says what failed in the log ("store" → "could
   * not close the store"). Added once shutdown began, it is closed at once.
   */
  add(name: string, close: () => Promise<void> | void): void;
  /**
   * Closes every component, newest first, each once; a failure is logged and the next one still
   * closes. Resolves true when all closed. Called again, it returns the same promise.
   */
  closeAll(): Promise<boolean>;
}

/**
 * Start-up and shutdown as a stack (fastify's onClose hooks, avvio): each component starts and
 * hands back its `close`; shutdown closes them in reverse order, so nothing closes before what
 * still uses it. See docs/explanation/architecture.md.
 */
export const createLifecycle = (logger: LifecycleLogger): Lifecycle => {
  const closers: Closer[] = [];
  let closing: Promise<boolean> | undefined;

  /** Closes one component, logging a failure; true when it closed. */
  const closeOne = async (closer: Closer): Promise<boolean> => {
    try {
      await closer.close();
      return true;
    } catch (err) {
      logger.error({ err }, `could not close the ${closer.name}`);
      return false;
    }
  };

  const closeAll = async (): Promise<boolean> => {
    let closed = true;
    for (let closer = closers.pop(); closer !== undefined; closer = closers.pop())
      closed = (await closeOne(closer)) && closed;
    return closed;
  };

  return {
    add: (name, close) => {
      // Started while shutting down (it was on its way up): it closes at once rather than outlive the rest.
      if (closing !== undefined) return void closeOne({ name, close });
      closers.push({ name, close });
    },
    closeAll: () => (closing ??= closeAll()),
  };
};
