import type { StoreLocation } from '../config/store-location.js';
import type { DataStore } from '../ports/store-data.js';
import type { BackupOptions, BackupReport } from './sqlite/backup.js';
import { openSqliteData } from './sqlite/data.js';

export type { BackupOptions, BackupReport } from './sqlite/backup.js';

/** A store opened for the data commands; SQLite's can also take an online backup of itself. */
export type OpenedDataStore = DataStore & {
  readonly backup?: (target: string, options: BackupOptions) => Promise<BackupReport>;
};

/**
 * Opens the store at `location` for export, import, migrate and backup (data/). `create`: a
 * missing SQLite file is made (a target); otherwise it is an error (a source).
 */
export const openDataStore = async (location: StoreLocation, create: boolean): Promise<OpenedDataStore> => {
  if (location.kind === 'postgres') {
    // Loaded only when asked for, like the server's store (adapters/open-store.ts).
    const { openPostgresData } = await import('./postgres/data.js');
    return openPostgresData({ url: location.url });
  }
  if (location.file === ':memory:') throw new TypeError('a :memory: store holds nothing to copy, and keeps nothing');
  return openSqliteData({ file: location.file, create });
};
