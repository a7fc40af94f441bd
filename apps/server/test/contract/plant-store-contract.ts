import { describe } from 'vitest';
import type { Store } from '../../src/ports/store.js';
import { changeLogContract } from './plant-store/change-log.js';
import { concurrencyContract } from './plant-store/concurrency.js';
import { createContract } from './plant-store/create.js';
import { createManyContract } from './plant-store/create-many.js';
import { getAndDeleteContract, listByTagContract, listContract } from './plant-store/get-delete-list.js';
import { idempotencyContract } from './plant-store/idempotency.js';
import { lifecycleContract } from './plant-store/lifecycle.js';
import { searchContract } from './plant-store/search.js';
import { replaceContract } from './plant-store/replace.js';
import { plantStoreSuite } from './plant-store/suite.js';
import { tokensContract } from './plant-store/tokens.js';
import { updateContract } from './plant-store/update.js';
import { writePositionsContract } from './plant-store/write-positions.js';

/**
 * The one contract every Store adapter passes, run on a real database.
 *
 * `open` must return a store over the SAME database every time it is called within one suite
 * (the suite opens several to test concurrency across instances and reopening). The database
 * need not be empty: every test works on ids and token names of its own, drawn from a random
 * range below 2^40 (the suite never creates an id near 2^53−1, which would move a high-water
 * mark to the end of the id space for good). Still, a fresh database per run is most reliable
 * (SQLite: a temp file; PostgreSQL: truncate the tables in the factory before the suite).
 * `persistent: false` (e.g. `:memory:`) skips the tests that reopen the database.
 *
 * Its parts live in plant-store/, one file per concept; they share the store and fresh values
 * through plantStoreSuite.
 */
export interface PlantStoreContractOptions {
  readonly persistent?: boolean;
}

export function plantStoreContract(
  name: string,
  open: () => Promise<Store>,
  options: PlantStoreContractOptions = {},
): void {
  const persistent = options.persistent ?? true;

  describe(`PlantStore contract: ${name}`, () => {
    const suite = plantStoreSuite(open, persistent);
    createContract(suite);
    createManyContract(suite);
    getAndDeleteContract(suite);
    searchContract(suite);
    listContract(suite);
    updateContract(suite);
    replaceContract(suite);
    listByTagContract(suite);
    concurrencyContract(suite);
    changeLogContract(suite);
    writePositionsContract(suite);
    idempotencyContract(suite);
    tokensContract(suite);
    lifecycleContract(suite);
  });
}
