import type { StoreTracing } from '../tracing/tracing.js';

/**
 * What a store adapter reports for operators (ops/metrics.ts turns it into series). Optional:
 * without one the adapters report nothing and pay nothing.
 */
export interface StoreObserver {
  /** SQLite: a group-commit transaction of `size` writes ran. */
  readonly batch?: (size: number) => void;
  /** PostgreSQL: an operation waited `seconds` (0 when a slot was free) for a connection slot. */
  readonly poolWait?: (seconds: number) => void;
  /** Tracing on: the trace each write was queued in (saved with its events) and a span per batch of writes. */
  readonly tracing?: StoreTracing;
}
