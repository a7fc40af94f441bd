import http from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';

/** What a test receiver saw of one request. */
export interface Received {
  readonly method: string;
  readonly url: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: Buffer;
  /** The address the sender dialled (the receiver's side of the connection). */
  readonly localAddress: string;
}

export interface Receiver {
  readonly port: number;
  readonly host: string;
  readonly received: Received[];
  /** Connections accepted (TCP), whatever happened on them. */
  readonly connections: () => number;
  /** Connections currently open. */
  readonly open: () => number;
  /** TLS server names (SNI) asked for, in order. */
  readonly serverNames: string[];
  readonly close: () => Promise<void>;
}

export type Handler = (req: http.IncomingMessage, res: http.ServerResponse, body: Buffer) => void;

export interface ReceiverOptions {
  readonly host?: string;
  readonly port?: number;
  readonly tls?: { readonly key: string; readonly cert: string };
}

/** A node:http(s) server on 127.0.0.1 (port 0 unless told) that records what it gets and answers with `handler`. */
export const startReceiver = async (handler: Handler, options: ReceiverOptions = {}): Promise<Receiver> => {
  const received: Received[] = [];
  const serverNames: string[] = [];
  const sockets = new Set<Socket>();
  let connections = 0;
  const onRequest = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      received.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body,
        localAddress: req.socket.localAddress ?? '',
      });
      handler(req, res, body);
    });
  };
  const server: http.Server =
    options.tls === undefined
      ? http.createServer(onRequest)
      : https.createServer(
          {
            key: options.tls.key,
            cert: options.tls.cert,
            SNICallback: (name, callback) => {
              serverNames.push(name);
              callback(null);
            },
          },
          onRequest,
        );
  server.on('connection', (socket: Socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  // Failed handshakes (the sender refusing the certificate) are expected here.
  server.on('tlsClientError', (_error: Error, socket: TLSSocket) => socket.destroy());
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    port,
    host,
    received,
    serverNames,
    connections: () => connections,
    open: () => sockets.size,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};

/** Answers every request with `status`, the given headers and a short body. */
export const answer =
  (status: number, headers: http.OutgoingHttpHeaders = {}): Handler =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': 'text/plain', ...headers });
    res.end('ok');
  };

/** A port nothing listens on (bound, then closed). */
export const closedPort = async (): Promise<number> => {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
};
