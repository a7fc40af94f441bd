import type { Server } from 'node:http';

/**
 * How the bench's helper processes (the webhook receiver, the OTLP sink) listen and end: HOST and
 * PORT from the environment, SIGTERM closes the server. Each also stops by itself, after
 * RECEIVER_LIFETIME_SECONDS and within a second of the bench process going away (killed, crashed),
 * so none outlives a run.
 */
export const listenUntilOrphaned = (server: Server, name: string): void => {
  const port = Number(process.env['PORT'] ?? '0');
  const host = process.env['HOST'] ?? '127.0.0.1';
  const lifetimeSeconds = Number(process.env['RECEIVER_LIFETIME_SECONDS'] ?? '');
  if (!Number.isInteger(port) || !Number.isInteger(lifetimeSeconds) || lifetimeSeconds < 1) {
    throw new TypeError(`${name}: an integer PORT and RECEIVER_LIFETIME_SECONDS ≥ 1 are required`);
  }
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
      `${name} listening on ${typeof address === 'object' && address !== null ? address.port : port}\n`,
    );
  });
  setTimeout(() => {
    process.stderr.write(`${name}: stopping after its lifetime of ${lifetimeSeconds} s\n`);
    stop(0);
  }, lifetimeSeconds * 1000).unref();
  // Re-parented (the bench is gone): stop.
  setInterval(() => {
    if (process.ppid !== parent) stop(0);
  }, 1000).unref();
  process.once('SIGTERM', () => stop(0));
};
