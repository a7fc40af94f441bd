import { DATA_TABLES, type DataReader, type DataStore, type DataTable, type IdState } from '../ports/store-data.js';
import { TableDigest } from './checksum.js';
import type { Progress } from './progress.js';

export interface TableReport {
  readonly table: DataTable;
  readonly rows: number;
  readonly sha256: string;
}

export interface MigrateReport {
  readonly tables: readonly TableReport[];
  readonly ids: IdState;
}

/** The count and checksum of every table, and the id state, as `read` sees them. */
const digestAll = async (
  read: DataReader,
  now: number,
  each?: (table: DataTable, rows: readonly object[]) => Promise<void>,
): Promise<MigrateReport> => {
  const tables: TableReport[] = [];
  for (const table of DATA_TABLES) {
    const digest = new TableDigest();
    for await (const rows of read.rows(table, now)) {
      digest.add(rows);
      await each?.(table, rows);
    }
    tables.push({ table, rows: digest.rows, sha256: digest.hex() });
  }
  return { tables, ids: await read.ids() };
};

const describe = (report: MigrateReport): string =>
  JSON.stringify({ tables: report.tables.map((t) => [t.table, t.rows, t.sha256]), ids: report.ids });

/**
 * Copies everything `source` holds into the empty `target`: one snapshot of the source, one
 * transaction on the target, in which the target is then read back and its counts, checksums and
 * id state compared with the source's; any difference, any failure (or the process ending) rolls
 * the target back, empty. Idempotency keys expired by the start are left behind.
 */
export const migrate = async (source: DataStore, target: DataStore, progress: Progress): Promise<MigrateReport> => {
  const now = Date.now();
  return source.snapshot(async (read) => {
    let total = 0;
    for (const table of DATA_TABLES) total += await read.count(table, now);
    return target.fill(async (write) => {
      progress.start('copying', total);
      let done = 0;
      const copied = await digestAll(read, now, async (table, rows) => {
        await write.insert(table, rows as never);
        done += rows.length;
        progress.update(done);
      });
      await write.setIds(copied.ids);
      progress.start('verifying', total);
      let checked = 0;
      const found = await digestAll(write, now, (_table, rows) => {
        checked += rows.length;
        progress.update(checked);
        return Promise.resolve();
      });
      progress.stop();
      if (describe(found) !== describe(copied)) {
        throw new Error(
          `the copy does not match the source (nothing was kept): source ${describe(copied)}, copy ${describe(found)}`,
        );
      }
      return copied;
    });
  });
};
