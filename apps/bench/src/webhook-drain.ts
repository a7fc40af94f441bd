import { setTimeout as sleep } from 'node:timers/promises';

/**
 * The webhook outbox of the `sqlite-webhook` row, read from the server's own metrics endpoint
 * (`plant_store_webhook_outbox_pending`, `plant_store_webhook_attempts_total{outcome}`), and how
 * long it takes to empty once the load stops.
 */

export interface OutboxReading {
  /** Deliveries not yet ended (due, waiting for a retry, or being attempted). */
  readonly pending: number;
  /** Attempts so far by outcome (counters since the server started). */
  readonly delivered: number;
  readonly retried: number;
  readonly failed: number;
}

export interface WebhookDrain {
  /** Pending deliveries when the load stopped (the first reading after the load generator exited). */
  readonly backlogAtStop: number;
  /** Pending deliveries when the load started (0 unless an earlier run had not drained). */
  readonly backlogAtStart: number;
  /** Seconds from the load's end until the outbox read 0; undefined when it had not by `limitSeconds`. */
  readonly seconds: number | undefined;
  readonly limitSeconds: number;
  /** Pending deliveries at the last reading (0 once drained). */
  readonly backlogAtEnd: number;
  /** Attempts from the load's start to the last reading, by outcome. */
  readonly delivered: number;
  readonly retried: number;
  readonly failed: number;
  /** POSTs the receiver answered over the same span, when it could be asked. */
  readonly received?: number;
}

/**
 * The value of the sample `name{labels}` (labels in any order; none: the sample without labels) in
 * a Prometheus text exposition; undefined when absent.
 */
export const metricValue = (
  text: string,
  name: string,
  labels: Readonly<Record<string, string>> = {},
): number | undefined => {
  const wanted = Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .sort()
    .join(',');
  for (const line of text.split('\n')) {
    const match = /^([A-Za-z_:][A-Za-z0-9_:]*)(?:\{([^}]*)\})?\s+(\S+)/.exec(line);
    if (match === null || match[1] !== name) continue;
    const have = (match[2] ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '')
      .sort()
      .join(',');
    if (have !== wanted) continue;
    const value = Number(match[3]);
    return Number.isNaN(value) ? undefined : value;
  }
  return undefined;
};

/** The outbox gauge and the attempt counters from a scrape; throws when a figure is missing. */
export const parseOutbox = (text: string): OutboxReading => {
  const read = (name: string, labels?: Record<string, string>): number => {
    const value = metricValue(text, name, labels);
    if (value === undefined)
      throw new Error(`metrics: no ${name}${labels === undefined ? '' : JSON.stringify(labels)} in the scrape`);
    return value;
  };
  const attempts = (outcome: string): number => read('plant_store_webhook_attempts_total', { outcome });
  return {
    pending: read('plant_store_webhook_outbox_pending'),
    delivered: attempts('delivered'),
    retried: attempts('retry'),
    failed: attempts('failed'),
  };
};

/** One scrape of `GET <metricsUrl>`. */
export const scrapeOutbox = async (metricsUrl: string): Promise<OutboxReading> => {
  const res = await fetch(metricsUrl, { signal: AbortSignal.timeout(5000) });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`metrics: GET ${metricsUrl} answered ${res.status}`);
  return parseOutbox(text);
};

export interface DrainOptions {
  /** A reading of the outbox (a scrape). */
  readonly read: () => Promise<OutboxReading>;
  /** The reading taken just before the load started (for the attempt counts). */
  readonly start: OutboxReading;
  readonly limitSeconds: number;
  readonly pollMs: number;
  readonly now?: () => number;
}

/**
 * Called the moment the load stops: reads the backlog, then reads again every `pollMs` until it is
 * 0 or `limitSeconds` have passed.
 */
export const measureDrain = async ({
  read,
  start,
  limitSeconds,
  pollMs,
  now = () => performance.now(),
}: DrainOptions): Promise<WebhookDrain> => {
  const stopped = now();
  const first = await read();
  let last = first;
  let at = now();
  while (last.pending > 0 && at - stopped < limitSeconds * 1000) {
    await sleep(pollMs);
    last = await read();
    at = now();
  }
  return {
    backlogAtStop: first.pending,
    backlogAtStart: start.pending,
    seconds: last.pending === 0 ? (at - stopped) / 1000 : undefined,
    limitSeconds,
    backlogAtEnd: last.pending,
    delivered: last.delivered - start.delivered,
    retried: last.retried - start.retried,
    failed: last.failed - start.failed,
  };
};

/** What the bench asks of a server with a webhook endpoint around each run of load. */
export interface WebhookProbe {
  /** Reads the outbox and the receiver's count just before a run's load starts. */
  beforeLoad(): Promise<void>;
  /** Called the moment the load stops: waits (bounded) for the outbox to drain and says how it went. */
  afterLoad(): Promise<WebhookDrain>;
}

export interface ProbeOptions {
  /** The server's `GET /metrics` URL. */
  readonly metricsUrl: string;
  /** POSTs the receiver has answered so far; undefined when it cannot tell. */
  readonly received: () => Promise<number | undefined>;
  readonly limitSeconds: number;
  readonly pollMs: number;
}

export const createWebhookProbe = ({ metricsUrl, received, limitSeconds, pollMs }: ProbeOptions): WebhookProbe => {
  const read = (): Promise<OutboxReading> => scrapeOutbox(metricsUrl);
  let start: OutboxReading | undefined;
  let receivedAtStart: number | undefined;
  return {
    beforeLoad: async () => {
      [start, receivedAtStart] = await Promise.all([read(), received()]);
    },
    afterLoad: async () => {
      const drain = await measureDrain({
        read,
        start: start ?? { pending: 0, delivered: 0, retried: 0, failed: 0 },
        limitSeconds,
        pollMs,
      });
      const receivedNow = await received();
      start = undefined;
      return receivedNow === undefined || receivedAtStart === undefined
        ? drain
        : { ...drain, received: receivedNow - receivedAtStart };
    },
  };
};

const int = (n: number): string => Math.round(n).toLocaleString('en-US');

/**
 * "drained in 2.3 s (5,367/s)" or "not drained in 60 s (1,234 left)". The rate is the backlog at
 * stop over the drain time: the dispatcher's deliveries a second with no load beside it.
 */
export const drainTime = (d: WebhookDrain): string =>
  d.seconds === undefined
    ? `not drained in ${d.limitSeconds} s (${int(d.backlogAtEnd)} left)`
    : `drained in ${d.seconds.toFixed(1)} s` +
      (d.seconds > 0 && d.backlogAtStop > 0 ? ` (${int(d.backlogAtStop / d.seconds)}/s)` : '');

/** One line for the log. */
export const formatDrain = (d: WebhookDrain): string =>
  `backlog ${int(d.backlogAtStop)} at stop (${int(d.backlogAtStart)} at start), ${drainTime(d)}; attempts ${int(d.delivered)} delivered, ` +
  `${int(d.retried)} retried, ${int(d.failed)} failed` +
  (d.received === undefined ? '' : `; the receiver answered ${int(d.received)}`);
