/** The part of autocannon 8's API the driver uses (the package ships no types). */
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  namespace autocannon {
    interface Request {
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      body?: string | Buffer;
    }
    interface RequestSpec extends Request {
      setupRequest?: (request: Request, context: Record<string, unknown>) => Request | undefined;
    }
    interface Options {
      url: string;
      connections?: number;
      pipelining?: number;
      duration?: number;
      timeout?: number;
      headers?: Record<string, string>;
      requests?: RequestSpec[];
      excludeErrorStats?: boolean;
    }
    interface Result {
      errors: number;
      timeouts: number;
      non2xx: number;
      duration: number;
      statusCodeStats: Record<string, { count: number }>;
    }
    interface Instance extends EventEmitter {
      stop(): void;
    }
  }

  function autocannon(
    options: autocannon.Options,
    done: (error: Error | null, result: autocannon.Result) => void,
  ): autocannon.Instance;
  export default autocannon;
}
