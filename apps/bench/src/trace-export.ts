import type { SinkStats } from './otlp-sink.js';

/**
 * The traced rows: the tracing environment their server gets, and what the OTLP sink received
 * around each run, so that a reader sees the spans really arrived (and how many per request).
 */

/** The sampler of a traced row, in the server's terms (OTEL_TRACES_SAMPLER and its argument). */
export type TraceSampling =
  | { readonly sampler: 'parentbased_always_on' }
  | { readonly sampler: 'parentbased_traceidratio'; readonly ratio: number };

/** The traced rows' samplers: every root trace kept, or one in ten (the `-ratio` rows). */
export const SAMPLE_ALL: TraceSampling = { sampler: 'parentbased_always_on' };
export const SAMPLE_RATIO: TraceSampling = { sampler: 'parentbased_traceidratio', ratio: 0.1 };

/** `100%` or `10%`, for labels and the log. */
export const sampledShare = (sampling: TraceSampling): string =>
  `${+((sampling.sampler === 'parentbased_traceidratio' ? sampling.ratio : 1) * 100).toFixed(2)}%`;

/**
 * `env` without any OTEL_* variable: an untraced row must not trace because the bench's shell has
 * OTEL_EXPORTER_OTLP_ENDPOINT set, nor a traced row export elsewhere than to its sink (the shell's
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT would win over the row's OTEL_EXPORTER_OTLP_ENDPOINT).
 */
export const withoutOtel = (env: NodeJS.ProcessEnv): NodeJS.ProcessEnv =>
  Object.fromEntries(Object.entries(env).filter(([name]) => !name.startsWith('OTEL_')));

/** What a traced row adds to its server's environment: export to `endpoint`, sample as `sampling` says. */
export const tracingEnv = (endpoint: string, sampling: TraceSampling): Readonly<Record<string, string>> => ({
  OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
  OTEL_TRACES_SAMPLER: sampling.sampler,
  ...(sampling.sampler === 'parentbased_traceidratio' ? { OTEL_TRACES_SAMPLER_ARG: String(sampling.ratio) } : {}),
});

/**
 * What the sink received during one run of load, warm-up included: from just before the load
 * started to the moment it stopped. The batch the server still held then (at most its batch
 * delay's worth, 5 s by default) arrives after, and counts toward the next run of the same server
 * and the server's total.
 */
export type TraceExport = SinkStats;

/** The counts received between two readings of the sink. */
export const exportedBetween = (start: SinkStats, end: SinkStats): TraceExport => ({
  requests: end.requests - start.requests,
  bytes: end.bytes - start.bytes,
  spans: end.spans - start.spans,
  unreadable: end.unreadable - start.unreadable,
});

/** What the bench asks of a traced server's sink around each run of load. */
export interface TraceProbe {
  /** Reads the sink just before a run's load starts. */
  beforeLoad(): Promise<void>;
  /** Reads it again the moment the load stops; undefined when the sink did not answer either time. */
  afterLoad(): Promise<TraceExport | undefined>;
}

export const createTraceProbe = (stats: () => Promise<SinkStats | undefined>): TraceProbe => {
  let start: SinkStats | undefined;
  return {
    beforeLoad: async () => {
      start = await stats();
    },
    afterLoad: async () => {
      const end = await stats();
      const from = start;
      start = undefined;
      return from === undefined || end === undefined ? undefined : exportedBetween(from, end);
    },
  };
};

/** `850 B`, `12.3 kB`, `1.2 MB` (decimal units). */
export const bytes = (n: number): string => {
  if (n < 1e3) return `${n} B`;
  const kilo = (n / 1e3).toFixed(1);
  return Number(kilo) < 1000 ? `${kilo} kB` : `${(n / 1e6).toFixed(1)} MB`;
};

const int = (n: number): string => Math.round(n).toLocaleString('en-US');
const requests = (n: number): string => `${int(n)} request${n === 1 ? '' : 's'}`;

/**
 * One line for the table's note and the log: `exported 1.2 MB in 140 requests, 45,210 spans (0.98
 * per response)`, `responses` being the load's responses over the same run; and plainly when
 * nothing arrived.
 */
export const formatExport = (e: TraceExport, responses: number): string =>
  e.requests === 0
    ? 'exported nothing during the run (0 requests to the sink)'
    : `exported ${bytes(e.bytes)} in ${requests(e.requests)}, ${int(e.spans)} spans` +
      (responses > 0 ? ` (${(e.spans / responses).toFixed(2)} per response)` : '') +
      (e.unreadable > 0 ? `, ${int(e.unreadable)} bodies unreadable` : '');

/**
 * What the sink received over the whole life of a traced row's server (read after the server
 * stopped, so its last batch is in), for the log; a row whose sink received nothing ran untraced,
 * which `untraced` says.
 */
export const formatTotal = (
  label: string,
  total: SinkStats | undefined,
): { readonly line: string; readonly untraced?: string } => {
  if (total === undefined) return { line: `${label}: the OTLP sink did not say what it received` };
  if (total.requests === 0)
    return {
      line: `${label}: the OTLP sink received nothing over the server's life`,
      untraced: `${label}: no traces reached the OTLP sink: the server exported none (a build without tracing ignores OTEL_*), so the row measured an untraced server`,
    };
  return {
    line:
      `${label}: the OTLP sink received ${bytes(total.bytes)} in ${int(total.requests)} requests, ` +
      `${int(total.spans)} spans over the server's life` +
      (total.unreadable > 0 ? ` (${int(total.unreadable)} bodies unreadable)` : ''),
  };
};
