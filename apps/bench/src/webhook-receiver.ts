import { createServer, type Server } from 'node:http';

/**
 * The `sqlite FULL +webhook` row's endpoint: a node:http server that answers every POST 204 at
 * once (before reading the body, which it drains and ignores), so the figures measure the
 * server's outbox and dispatcher, not a receiver. It counts what it was sent; `GET /stats` tells,
 * `GET /readyz` answers 200 (the bench waits on it like on a server).
 */
export interface ReceiverStats {
  /** POSTs answered. */
  readonly requests: number;
  /** Distinct `webhook-id`s among them (the rest are repeats: at least once). */
  readonly uniqueIds: number;
}

export interface WebhookReceiver {
  readonly server: Server;
  stats(): ReceiverStats;
}

export const createWebhookReceiver = (): WebhookReceiver => {
  let requests = 0;
  const ids = new Set<string>();
  const stats = (): ReceiverStats => ({ requests, uniqueIds: ids.size });
  const server = createServer((req, res) => {
    if (req.method === 'POST') {
      requests++;
      const id = req.headers['webhook-id'];
      if (typeof id === 'string') ids.add(id);
      req.resume();
      res.writeHead(204).end();
      return;
    }
    const path = (req.url ?? '').split('?')[0];
    if (req.method === 'GET' && path === '/stats') {
      const body = JSON.stringify(stats());
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
      return;
    }
    if (req.method === 'GET' && path === '/readyz') {
      res.writeHead(200).end();
      return;
    }
    res.writeHead(404).end();
  });
  return { server, stats };
};
