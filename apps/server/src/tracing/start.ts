import type { TracingConfig } from '../config/tracing.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../ops/metrics.js';
import { serverVersion } from '../server-version.js';
import type { Tracing } from './tracing.js';

/**
 * Loads the OpenTelemetry SDK (only now: a server without OTEL_* never loads it) and starts
 * tracing; the metrics, when on, count what became of the spans.
 */
export const startConfiguredTracing = async (
  config: TracingConfig,
  logger: Logger,
  metrics: Metrics | undefined,
): Promise<Tracing> => {
  const { startTracing } = await import('./otel-tracing.js');
  return startTracing(config, {
    version: serverVersion(),
    log: logger,
    onSpans: metrics === undefined ? undefined : (outcome, count) => metrics.traceSpans(outcome, count),
  });
};
