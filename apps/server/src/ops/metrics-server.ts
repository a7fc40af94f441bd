import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** Where the scrape text comes from: one registry, or the workers' registries aggregated. */
export interface MetricsSource {
  readonly contentType: string;
  metrics(): Promise<string>;
}

/**
 * The second listener of METRICS_PORT: `GET /metrics` in the Prometheus text format, no
 * authentication (keep it off public interfaces: METRICS_HOST defaults to 127.0.0.1). Anything
 * else is a plain 404/405; this is not the API, so it has none of the API's machinery.
 */
export const startMetricsServer = async (
  source: MetricsSource,
  host: string,
  port: number,
): Promise<{ readonly url: string; close(): Promise<void> }> => {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/metrics')
      return void res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('not found; try /metrics\n');
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return void res
        .writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8' })
        .end('method not allowed\n');
    source.metrics().then(
      (text) =>
        res
          .writeHead(200, {
            'Content-Type': source.contentType,
            'Cache-Control': 'no-store',
            'X-Content-Type-Options': 'nosniff',
          })
          .end(req.method === 'HEAD' ? undefined : text),
      (err: unknown) =>
        res
          .writeHead(503, { 'Content-Type': 'text/plain; charset=utf-8' })
          .end(`metrics unavailable: ${err instanceof Error ? err.message : String(err)}\n`),
    );
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shown}:${address.port}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};
