import type { Call, Operation, PlantValue, Result } from './history.js';
import type { SimpleResponse } from './http.js';
import type { StoredPlant } from './store.js';

const parse = (body: string): unknown => {
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return undefined;
  }
};

/** The plant value of a stored row or a response body (`tag` left out when there is none). */
export const plantValue = (plant: { readonly name: string; readonly tag?: string | undefined }): PlantValue =>
  plant.tag === undefined ? { name: plant.name } : { name: plant.name, tag: plant.tag };

/**
 * Records the operations of a load as a History (support/history.ts) for the linearizability
 * checker, for loads that keep their own books (Ledger, OutageLoad).
 */
export class HistoryRecorder {
  readonly history: Operation[] = [];

  record(call: Call, result: Result, invokedAt: number, returnedAt: number, client = 0): void {
    this.history.push({ client, call, result, invokedAt, returnedAt });
  }

  /** A write whose outcome is unknown: it may land any time after `invokedAt` (until `closeUnknown`), or never. */
  unknown(call: Call, invokedAt: number): void {
    this.record(call, { status: 'unknown' }, invokedAt, Infinity);
  }

  /** A definite answer as a result (the ETag of a 201 or 200, the value of a 200); other statuses are left out. */
  answer(call: Call, res: SimpleResponse, invokedAt: number, returnedAt = performance.now()): void {
    const etag = typeof res.headers.etag === 'string' ? res.headers.etag : '(no ETag)';
    if (res.status === 201) return this.record(call, { status: 201, etag }, invokedAt, returnedAt);
    if (res.status === 200) {
      const body = parse(res.body) as { name?: unknown; tag?: unknown } | undefined;
      const value = plantValue({
        name: String(body?.name),
        tag: typeof body?.tag === 'string' ? body.tag : undefined,
      });
      return this.record(call, { status: 200, value, etag }, invokedAt, returnedAt);
    }
    if (res.status === 204 || res.status === 404 || res.status === 409 || res.status === 412)
      this.record(call, { status: res.status }, invokedAt, returnedAt);
  }

  /** A list page: each plant on it a read without an ETag, within the list request. */
  listed(page: unknown, from: number, to: number): void {
    if (!Array.isArray(page)) return;
    for (const p of page as { id?: unknown; name?: unknown; tag?: unknown }[]) {
      if (typeof p.id !== 'number' || typeof p.name !== 'string') continue;
      const value = plantValue({ name: p.name, tag: typeof p.tag === 'string' ? p.tag : undefined });
      this.record({ op: 'get', id: p.id }, { status: 200, value }, from, to);
    }
  }

  /** The writes still without an answer could not land after `at` (the server that took them died, its store settled). */
  closeUnknown(at: number): void {
    this.history.forEach((op, i) => {
      if (op.result.status === 'unknown' && op.returnedAt === Infinity) this.history[i] = { ...op, returnedAt: at };
    });
  }

  /** The store as read directly between `from` and `to`: a read (without ETag) of every id the history names. */
  observe(stored: ReadonlyMap<number, StoredPlant>, from: number, to: number): void {
    for (const id of new Set(this.history.map((op) => op.call.id))) {
      const plant = stored.get(id);
      const result: Result = plant === undefined ? { status: 404 } : { status: 200, value: plantValue(plant) };
      this.record({ op: 'get', id }, result, from, to);
    }
  }
}
