// A TCP proxy in front of the server that loses one answer: it forwards the request, waits for
// the server's response to start (so the server has committed the create), then cuts the
// connection instead of passing the response on. That is a "lost answer" as a flaky network or a
// load balancer's timeout produces it. Used by idempotent-create.ts only.
import { once } from 'node:events';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

export interface LossyProxy {
  readonly url: string;
  /** Drop the next response that comes back from the server. */
  loseNextAnswer(): void;
  close(): Promise<void>;
}

export const startLossyProxy = async (target: string): Promise<LossyProxy> => {
  const { hostname, port } = new URL(target);
  let loseNext = false;
  const sockets = new Set<Socket>();
  const server: Server = createServer((downstream) => {
    sockets.add(downstream);
    downstream.on('close', () => sockets.delete(downstream));
    const upstream = connect(Number(port || 80), hostname.replace(/^\[|\]$/g, ''));
    downstream.pipe(upstream);
    upstream.on('data', (chunk: Buffer) => {
      if (loseNext) {
        loseNext = false;
        downstream.destroy(); // the client sees the connection reset, never the 201
        upstream.destroy();
      } else {
        downstream.write(chunk);
      }
    });
    upstream.on('end', () => downstream.end());
    upstream.on('error', () => downstream.destroy());
    downstream.on('error', () => upstream.destroy());
    downstream.on('close', () => upstream.destroy());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    loseNextAnswer: () => void (loseNext = true),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, 'close');
    },
  };
};
