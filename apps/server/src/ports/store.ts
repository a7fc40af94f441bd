import type { PlantStore } from './plant-store.js';
import type { TokenStore } from './token-store.js';

/** One opened database: the plant and token stores over it, and how to close it. */
export interface Store {
  readonly plants: PlantStore;
  readonly tokens: TokenStore;
  /** Flushes pending writes, then releases connections and files. Idempotent. */
  close(): Promise<void>;
}
