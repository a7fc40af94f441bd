/**
 * The server's timeouts, chosen deliberately:
 * - headersTimeout 10 s: a client gets 10 s to send the request line and headers (slowloris guard);
 * - requestTimeout 30 s: the whole request, body included (bodies are at most a few KiB);
 *   these two are configurable (HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS; their defaults here);
 * - keepAliveTimeout 65 s: longer than the 60 s idle timeout of common load balancers, so the
 *   balancer, not this server, closes idle connections (no race on a reused socket);
 * - maxHeaderSize 16 KiB (Node's default, stated): larger headers → 431;
 * - connectionsCheckingInterval 1 s: how often Node checks the two request timeouts, so a 408
 *   comes at most ~1 s late.
 */
export const SERVER_TIMEOUTS = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 65_000,
  maxHeaderSize: 16 * 1024,
  connectionsCheckingIntervalMs: 1_000,
} as const;
