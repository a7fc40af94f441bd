/** `plant-store export`: every plant that matches, one JSON line each, page after page. */
import { Plant, type PlantSort } from '@plant-store/domain';
import { AbortError, UnexpectedResponseError } from './client-error.js';
import type { PlantStoreClient } from './create-plant-store-client.js';
import { advanceProblem } from './list-page.js';
import type { ListPlantsQuery, NextPageQuery, PlantListPage } from './plants-api.js';
import { startProgress, type ProgressStream } from './progress.js';

/** Where the lines go: stdout, whose `write` answers false when its buffer is full. */
export interface LineSink {
  write(chunk: string): unknown;
  once?(event: 'drain', listener: () => void): unknown;
  removeListener?(event: 'drain', listener: () => void): unknown;
}

/** A plant as the API returns it: its encoding through Plant, members in the wire order. */
export const plantJsonLine = (plant: Plant): string => `${JSON.stringify(Plant.encode(plant))}\n`;

/** Writes `text`; when the sink's buffer is full, waits until it drains, so memory stays flat. */
export const writeLine = async (sink: LineSink, text: string, signal: AbortSignal | undefined): Promise<void> => {
  if (sink.write(text) !== false || sink.once === undefined) return;
  await new Promise<void>((resolve, reject) => {
    const onAbort = () => {
      sink.removeListener?.('drain', onDrain);
      reject(new AbortError('interrupted while stdout was full', { cause: signal?.reason }));
    };
    const onDrain = () => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    };
    sink.once?.('drain', onDrain);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
};

/**
 * The first page, counted when the bar needs a total. A server that does not count (an older one,
 * or a proxy that drops the headers) costs the bar its total, not the export.
 */
const firstPage = async (
  client: PlantStoreClient,
  query: ListPlantsQuery<PlantSort>,
  count: boolean,
): Promise<PlantListPage<PlantSort> & { readonly total?: number }> => {
  if (!count) return client.plants.list(query);
  try {
    return await client.plants.list(query, { count: true });
  } catch (error) {
    if (error instanceof UnexpectedResponseError) return client.plants.list(query);
    throw error;
  }
};

export interface ExportIo {
  readonly stdout: LineSink;
  readonly stderr: ProgressStream;
  readonly signal?: AbortSignal | undefined;
}

/**
 * Pages through `GET /plants` with `query`, following each page's `next` as `plants.all` does, and
 * writes one line per plant. On a terminal the first page also asks for the count (once), which
 * is the bar's total. Resolves to the number of plants written; rejects with the client's errors.
 */
export const exportPlants = async (
  client: PlantStoreClient,
  query: ListPlantsQuery<PlantSort>,
  io: ExportIo,
): Promise<number> => {
  let page = await firstPage(client, query, io.stderr.isTTY === true);
  const { total } = page;
  const progress = startProgress(io.stderr, 'plants', total ?? 0);
  let written = 0;
  try {
    let previous: NextPageQuery<PlantSort> | undefined;
    for (;;) {
      for (const plant of page.plants) {
        await writeLine(io.stdout, plantJsonLine(plant), io.signal);
        written++;
        progress.increment();
        // Without a total the bar shows what is done so far.
        if (total === undefined) progress.setTotal(written);
      }
      const next = page.next;
      if (next === undefined) return written;
      const stuck = advanceProblem(previous, next);
      if (stuck !== undefined) throw new UnexpectedResponseError([`the Link rel="next" does not advance (${stuck})`]);
      previous = next;
      page = await client.plants.list(next);
    }
  } finally {
    progress.stop();
  }
};
