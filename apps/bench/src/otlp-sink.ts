import { createServer, type Server } from 'node:http';
import { countSpans } from './otlp-spans.js';

/**
 * The traced rows' OTLP/HTTP receiver: `POST /v1/traces` (any content type) is read to its end,
 * counted, and answered 200 with an empty body in the request's own `Content-Type` (an empty
 * message in either encoding), so the figures measure the server's exporter, not a collector.
 * `GET /stats` tells what it counted, `GET /readyz` answers 200 (the bench waits on it like on a
 * server).
 */
export interface SinkStats {
  /** Exports answered. */
  readonly requests: number;
  /** Their bodies' bytes, as sent (compressed, if they were). */
  readonly bytes: number;
  /** Spans in the bodies that could be read (src/otlp-spans.ts). */
  readonly spans: number;
  /** Bodies whose spans could not be counted (another content type, or not an export). */
  readonly unreadable: number;
}

export interface OtlpSink {
  readonly server: Server;
  stats(): SinkStats;
}

export const createOtlpSink = (): OtlpSink => {
  let requests = 0;
  let bytes = 0;
  let spans = 0;
  let unreadable = 0;
  const stats = (): SinkStats => ({ requests, bytes, spans, unreadable });
  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (req.method === 'POST' && path === '/v1/traces') {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        requests++;
        bytes += body.length;
        const counted = countSpans(body, req.headers['content-type'], req.headers['content-encoding']);
        if (counted === undefined) unreadable++;
        else spans += counted;
        const type = req.headers['content-type'];
        res.writeHead(200, { ...(type === undefined ? {} : { 'content-type': type }), 'content-length': 0 }).end();
      });
      return;
    }
    if (req.method === 'GET' && path === '/stats') {
      const body = JSON.stringify(stats());
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
      return;
    }
    if (req.method === 'GET' && path === '/readyz') {
      res.writeHead(200).end();
      return;
    }
    req.resume();
    res.writeHead(404).end();
  });
  return { server, stats };
};
