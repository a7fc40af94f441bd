import type { PlantStore } from '../ports/plant-store.js';
import { startPurge, type PeriodicPurge } from '../ops/periodic-purge.js';

/** Forgets expired idempotency keys (lookups ignore them anyway, so a late purge costs only disk). */
export const startKeyPurge = (
  plants: PlantStore,
  options: { readonly intervalMs: number; readonly logger?: { warn(obj: object, msg: string): void } },
): PeriodicPurge =>
  startPurge((limit) => plants.purgeExpiredKeys(limit), { ...options, what: 'expired idempotency keys' });
