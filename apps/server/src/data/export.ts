import type { Writable } from 'node:stream';
import { Plant } from '@plant-store/domain';
import { storedPlant, type DataStore, type PlantRow } from '../ports/store-data.js';
import type { Progress } from './progress.js';

/** A plant as one line of JSON, as the API shows it: its encoding through Plant. */
export const plantLine = (plant: Plant): string => JSON.stringify(Plant.encode(plant)) + '\n';

/** A `plants` row as its line; a row that is not a plant stops the export, naming it. */
const rowLine = (row: PlantRow): string => plantLine(storedPlant(row));

/** `text` written to `out`, waiting for it to drain when its buffer is full (constant memory). */
const write = async (out: Writable, text: string): Promise<void> => {
  if (out.write(text)) return;
  await new Promise<void>((resolve, reject) => {
    const onError = (error: Error) => {
      out.off('drain', onDrain);
      reject(error);
    };
    const onDrain = () => {
      out.off('error', onError);
      resolve();
    };
    out.once('drain', onDrain);
    out.once('error', onError);
  });
};

/** Every plant, in id order, from one snapshot, as JSON Lines on `out`. Returns how many. */
export const exportPlants = (store: DataStore, out: Writable, progress: Progress): Promise<number> =>
  store.snapshot(async (read) => {
    progress.start('exporting', await read.count('plants', 0));
    let n = 0;
    for await (const rows of read.rows('plants', 0)) {
      await write(out, rows.map(rowLine).join(''));
      n += rows.length;
      progress.update(n);
    }
    progress.stop();
    return n;
  });
