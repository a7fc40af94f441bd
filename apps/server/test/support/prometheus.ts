/**
 * Reads a scrape the way Prometheus tooling does: with the official Python client's parser
 * (`prometheus_client.parser`, Debian's python3-prometheus-client, which `.ci/run` installs),
 * never a regular expression of ours. Where it is missing the metrics tests are skipped with one
 * line saying so, except under CI=true, where they fail.
 */
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const python = process.env['PROMETHEUS_PYTHON'] ?? '/usr/bin/python3';
const script = join(dirname(fileURLToPath(import.meta.url)), 'parse-scrape.py');

const parserAvailable = ((): boolean => {
  try {
    execFileSync(python, ['-c', 'import prometheus_client.parser'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
export const runMetricsTests = parserAvailable || process.env['CI'] === 'true';
const noticed = Symbol.for('plant-store.server.prometheus-skip-notice');
if (!runMetricsTests && !(noticed in globalThis)) {
  Object.defineProperty(globalThis, noticed, { value: true });
  console.log(
    `metrics tests skipped: no prometheus_client for ${python} (apt-get install python3-prometheus-client; CI=true fails instead)`,
  );
}

export interface Sample {
  /** The sample's own name: `x`, or `x_bucket` / `x_count` / `x_sum` of a histogram `x`. */
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface Family {
  readonly name: string;
  readonly type: 'counter' | 'gauge' | 'histogram' | 'summary' | 'unknown' | 'info' | 'stateset' | 'gaugehistogram';
  readonly help: string;
  readonly samples: readonly Sample[];
}

export const parseScrape = (text: string): readonly Family[] =>
  (JSON.parse(execFileSync(python, [script], { input: text, encoding: 'utf8' })) as Family[]).map((f) => ({
    ...f,
    samples: f.samples.map((s) => ({ ...s, value: Number(s.value) })),
  }));

/** The family of `name` (a counter's family name has no `_total`, as the parser gives it). */
export const family = (families: readonly Family[], name: string): Family | undefined =>
  families.find((f) => f.name === name);

const matches = (sample: Sample, labels: Readonly<Record<string, string>>): boolean =>
  Object.entries(labels).every(([name, value]) => sample.labels[name] === value);

/** The sum of the samples called `sampleName` with those labels (0 when none). */
export const sampleSum = (
  families: readonly Family[],
  sampleName: string,
  labels: Readonly<Record<string, string>> = {},
): number =>
  families
    .flatMap((f) => f.samples)
    .filter((s) => s.name === sampleName && matches(s, labels))
    .reduce((sum, s) => sum + s.value, 0);
