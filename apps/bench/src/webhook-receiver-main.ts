import { listenUntilOrphaned } from './bounded-child.js';
import { createWebhookReceiver } from './webhook-receiver.js';

/**
 * Entry of the webhook receiver process (`node dist/webhook-receiver-main.js`), started by the bench
 * for the `sqlite-webhook` row; it ends as src/bounded-child.ts says.
 */
listenUntilOrphaned(createWebhookReceiver().server, 'webhook receiver');
