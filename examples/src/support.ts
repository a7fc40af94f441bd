// What every example shares: where the server is and which token to use, read from the
// environment exactly as the `plant-store` CLI reads them, and a check that makes an example
// exit non-zero when what it shows did not happen (CI runs every example and relies on that).
import { createPlantStoreClient, type PlantStoreClient, type PlantStoreClientOptions } from '@plant-store/client';

/** PLANT_STORE_URL, default http://127.0.0.1:3000 (where `pnpm start` listens). */
export const baseUrl: string = process.env['PLANT_STORE_URL'] || 'http://127.0.0.1:3000';

/** PLANT_STORE_TOKEN: the first-run token `pnpm start` printed, or one from `pnpm tokens create`. */
export const token = (): string => {
  const value = process.env['PLANT_STORE_TOKEN'];
  if (value === undefined || value === '') {
    console.error(
      'Set PLANT_STORE_TOKEN to a token with plants:read and plants:write (the one `pnpm start` printed on its first run).',
    );
    process.exit(2);
  }
  return value;
};

/** A client for PLANT_STORE_URL with PLANT_STORE_TOKEN, plus any other options. */
export const connect = (options: Partial<PlantStoreClientOptions> = {}): PlantStoreClient =>
  createPlantStoreClient({ baseUrl, token: token(), ...options });

/**
 * A tag (or key) no earlier run used, so that an example sees only the plants it made, whatever
 * else your store holds.
 */
export const fresh = (prefix: string): string =>
  `${prefix}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

/** Stops the example (exit code 1) when `condition` is false: "what it shows did not happen". */
export function check(condition: boolean, what: string): asserts condition {
  if (!condition) throw new Error(`example failed: ${what}`);
}
