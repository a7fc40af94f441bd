import type { StoreName } from './config.js';
import type { Plan } from './plans.js';
import type { ScenarioKind } from './scenarios.js';
import { startOtlpSink } from './servers.js';
import { createTraceProbe, formatTotal, sampledShare, tracingEnv, type TraceSampling } from './trace-export.js';

/** What the traced rows run: the cost of a span per write and per read, and on one write's latency. */
export const TRACED: readonly ScenarioKind[] = ['create', 'get', 'latency'];

export interface TracedPlanOptions {
  readonly name: StoreName;
  /** The untraced row's label (`sqlite FULL`), which `+tracing` or `+tracing 10%` follows. */
  readonly base: string;
  readonly sampling: TraceSampling;
  /** Where the sink runs (never the server's core: its CPU is not the server's). */
  readonly sinkCore: number | undefined;
  /** The sink stops by itself after this (src/bounded-child.ts). */
  readonly lifetimeSeconds: number;
  readonly log: (line: string) => void;
  readonly warn: (line: string) => void;
  readonly notes: Record<string, unknown>;
  /** The untraced store's plan under `label`, its server's environment extended by `env`. */
  readonly plan: (label: string, env: Readonly<Record<string, string>>) => Plan;
}

/** `sqlite FULL +tracing`, `sqlite FULL +tracing 10%`. */
export const tracedLabel = (base: string, sampling: TraceSampling): string =>
  `${base} +tracing${sampling.sampler === 'parentbased_always_on' ? '' : ` ${sampledShare(sampling)}`}`;

/**
 * A store of ours whose server exports every span it keeps to an OTLP sink of its own (its own
 * process): the sink starts first, the server gets its URL as OTEL_EXPORTER_OTLP_ENDPOINT, and the
 * sink is read around each run and once more after the server stopped (its last batch flushed).
 */
export const tracedPlan = ({
  name,
  base,
  sampling,
  sinkCore,
  lifetimeSeconds,
  log,
  warn,
  notes,
  plan,
}: TracedPlanOptions): Plan => {
  const label = tracedLabel(base, sampling);
  return {
    name,
    label,
    scenarios: TRACED,
    start: async () => {
      const sink = await startOtlpSink(sinkCore, lifetimeSeconds);
      try {
        const env = tracingEnv(sink.url, sampling);
        const launched = await plan(label, env).start();
        if (typeof launched === 'string') {
          await sink.stop();
          return launched;
        }
        log(
          `${label}: traces to the OTLP sink at ${sink.url} (pid ${sink.pid}${sinkCore === undefined ? '' : `, core ${sinkCore}`}), ` +
            `OTEL_TRACES_SAMPLER=${env['OTEL_TRACES_SAMPLER'] ?? ''} (${sampledShare(sampling)} of root traces)`,
        );
        return {
          ...launched,
          traces: createTraceProbe(() => sink.stats()),
          cleanup: async () => {
            try {
              await launched.cleanup();
              const total = await sink.stats();
              const exports = (notes['traceExports'] ?? {}) as Record<string, unknown>;
              notes['traceExports'] = { ...exports, [label]: total ?? null };
              const { line, untraced } = formatTotal(label, total);
              log(line);
              if (untraced !== undefined) warn(untraced);
            } finally {
              await sink.stop();
            }
          },
        };
      } catch (error) {
        await sink.stop();
        throw error;
      }
    },
  };
};
