import { startPurge, type PeriodicPurge } from '../ops/periodic-purge.js';
import type { WebhookStore } from '../ports/webhook-store.js';

/** Forgets ended deliveries (and their attempts) older than WEBHOOK_RETENTION_DAYS, in the background. */
export const startRetentionPurge = (
  webhooks: WebhookStore,
  options: {
    readonly retentionMs: number;
    readonly intervalMs: number;
    readonly logger?: { warn(obj: object, msg: string): void };
  },
): PeriodicPurge =>
  startPurge((limit) => webhooks.purgeEnded(options.retentionMs, limit), {
    what: 'ended webhook deliveries',
    intervalMs: options.intervalMs,
    ...(options.logger === undefined ? {} : { logger: options.logger }),
  });
