import type { Tracing } from './tracing.js';

/**
 * The logger's mixin on a traced server: `trace_id` and `span_id` of the active span on every line
 * written inside a request. The logger exists before tracing has started, so the mixin is bound
 * to it once it has.
 */
export const traceLogFields = (): {
  readonly mixin: () => Record<string, string>;
  readonly bind: (tracing: Tracing) => void;
} => {
  let bound: Tracing | undefined;
  return {
    mixin: () => bound?.logFields() ?? {},
    bind: (tracing) => {
      bound = tracing;
    },
  };
};
