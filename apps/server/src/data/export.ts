import type { Writable } from 'node:stream';
import type { DataStore, PlantRow } from '../ports/store-data.js';
import type { Progress } from './progress.js';

/** A plant as one line of JSON, as the API shows it: `{"id","name","tag"?}`. */
export const plantLine = (p: PlantRow): string =>
  JSON.stringify(p.tag === null ? { id: p.id, name: p.name } : { id: p.id, name: p.name, tag: p.tag }) + '\n';

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
      await write(out, rows.map(plantLine).join(''));
      n += rows.length;
      progress.update(n);
    }
    progress.stop();
    return n;
  });
