import type client from 'prom-client';

/** Upper bounds (seconds) of the request-duration histogram's buckets. */
export const DURATION_BUCKETS: readonly number[] = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];

/** Node answers with statuses 100–599 only. */
const STATUS_SLOTS = 600;

/** What one (method, route template) pair has seen. */
interface RouteSlot {
  readonly method: string;
  readonly route: string;
  /** Requests answered, by status, not yet handed to prom-client's counter. */
  readonly pending: Float64Array;
  /** Observations per bucket since start, not cumulative; the last counts those above every bound. */
  readonly buckets: Float64Array;
  sum: number;
  count: number;
}

/**
 * The request counts and durations of every (method, route template) pair, kept in plain numbers
 * so that recording one request costs two map lookups and a few additions; prom-client reads them
 * when scraped. Labels stay bounded: Node's parser knows a fixed list of methods, and routes are
 * templates (`/plants/{id}`) or `unmatched`.
 */
export class RouteTable {
  private readonly byMethod = new Map<string, Map<string, RouteSlot>>();

  constructor(private readonly bounds: readonly number[]) {}

  record(method: string, route: string, status: number, seconds: number): void {
    const slot = this.slot(method, route);
    if (status >= 0 && status < STATUS_SLOTS) slot.pending[status] = (slot.pending[status] ?? 0) + 1;
    let bucket = 0;
    while (bucket < this.bounds.length && seconds > (this.bounds[bucket] ?? Infinity)) bucket++;
    slot.buckets[bucket] = (slot.buckets[bucket] ?? 0) + 1;
    slot.sum += seconds;
    slot.count++;
  }

  /** Hands every pending count to `add` and forgets it (for a counter's `collect`). */
  drainCounts(add: (method: string, route: string, status: number, n: number) => void): void {
    for (const slot of this.slots()) {
      for (let status = 0; status < STATUS_SLOTS; status++) {
        const n = slot.pending[status] ?? 0;
        if (n === 0) continue;
        slot.pending[status] = 0;
        add(slot.method, slot.route, status, n);
      }
    }
  }

  /** The histogram's samples in prom-client's JSON form: per label set, cumulative buckets, sum, count. */
  histogramValues(name: string): client.MetricValueWithName<string>[] {
    const values: client.MetricValueWithName<string>[] = [];
    for (const { method, route, buckets, sum, count } of this.slots()) {
      let cumulative = 0;
      for (let i = 0; i <= this.bounds.length; i++) {
        cumulative += buckets[i] ?? 0;
        values.push({
          metricName: `${name}_bucket`,
          labels: { le: this.bounds[i] ?? '+Inf', method, route },
          value: cumulative,
        });
      }
      values.push({ metricName: `${name}_sum`, labels: { method, route }, value: sum });
      values.push({ metricName: `${name}_count`, labels: { method, route }, value: count });
    }
    return values;
  }

  resetHistogram(): void {
    for (const slot of this.slots()) {
      slot.buckets.fill(0);
      slot.sum = 0;
      slot.count = 0;
    }
  }

  private *slots(): Generator<RouteSlot> {
    for (const routes of this.byMethod.values()) yield* routes.values();
  }

  private slot(method: string, route: string): RouteSlot {
    let routes = this.byMethod.get(method);
    if (routes === undefined) {
      routes = new Map();
      this.byMethod.set(method, routes);
    }
    let slot = routes.get(route);
    if (slot === undefined) {
      slot = {
        method,
        route,
        pending: new Float64Array(STATUS_SLOTS),
        buckets: new Float64Array(this.bounds.length + 1),
        sum: 0,
        count: 0,
      };
      routes.set(route, slot);
    }
    return slot;
  }
}

/**
 * A histogram series read from a RouteTable, for a prom-client registry. prom-client reads a
 * registered metric through `get()` (its JSON form, which the cluster aggregation sums too), the
 * same way it registers the aggregated metrics it builds itself; its own Histogram class would
 * hash the labels of every observation.
 */
export const routeHistogram = (name: string, help: string, table: RouteTable): client.Metric => {
  const metric = {
    name,
    help,
    type: 'histogram',
    aggregator: 'sum',
    get: () =>
      Promise.resolve({ name, help, type: 'histogram', aggregator: 'sum', values: table.histogramValues(name) }),
    reset: () => table.resetHistogram(),
  };
  return metric as unknown as client.Metric;
};
