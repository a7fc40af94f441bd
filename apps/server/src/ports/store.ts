import type { ChangeLog } from './change-log.js';
import type { PlantStore } from './plant-store.js';
import type { TokenStore } from './token-store.js';
import type { WebhookStore } from './webhook-store.js';

/** One opened database: the plant, token and webhook stores over it, and how to close it. */
export interface Store {
  readonly plants: PlantStore;
  /** Every committed change of a plant, numbered in commit order (GET /plants/changes). */
  readonly changes: ChangeLog;
  readonly tokens: TokenStore;
  /** Webhook endpoints and the outbox's deliveries (the plant writes fill it). */
  readonly webhooks: WebhookStore;
  /** Flushes pending writes, then releases connections and files. Idempotent. */
  close(): Promise<void>;
}
