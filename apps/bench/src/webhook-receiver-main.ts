import { createWebhookReceiver } from './webhook-receiver.js';

/**
 * Entry of the webhook receiver process (`node dist/webhook-receiver-main.js`), started by the bench
 * for the `sqlite-webhook` row: HOST and PORT from the environment, SIGTERM closes it. It stops by
 * itself, too: after RECEIVER_LIFETIME_SECONDS, and within a second of the bench process going
 * away (killed, crashed), so no receiver outlives a run.
 */
const port = Number(process.env['PORT'] ?? '0');
const host = process.env['HOST'] ?? '127.0.0.1';
const lifetimeSeconds = Number(process.env['RECEIVER_LIFETIME_SECONDS'] ?? '');
if (!Number.isInteger(port) || !Number.isInteger(lifetimeSeconds) || lifetimeSeconds < 1) {
  throw new TypeError('webhook-receiver-main: an integer PORT and RECEIVER_LIFETIME_SECONDS ≥ 1 are required');
}

const { server } = createWebhookReceiver();
const parent = process.ppid;
const stop = (code: number): void => {
  server.close(() => process.exit(code));
  server.closeAllConnections();
  // Closing never hangs the exit.
  setTimeout(() => process.exit(code), 2000).unref();
};
server.listen(port, host, () => {
  const address = server.address();
  process.stdout.write(
    `webhook receiver listening on ${typeof address === 'object' && address !== null ? address.port : port}\n`,
  );
});
setTimeout(() => {
  process.stderr.write(`webhook receiver: stopping after its lifetime of ${lifetimeSeconds} s\n`);
  stop(0);
}, lifetimeSeconds * 1000).unref();
// Re-parented (the bench is gone): stop.
setInterval(() => {
  if (process.ppid !== parent) stop(0);
}, 1000).unref();
process.once('SIGTERM', () => stop(0));
