import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { createLifecycle } from '../../src/lifecycle.js';
import { drainServer, type ShutdownOutcome } from '../../src/shutdown.js';
import { startTestServer, type TestServer } from './support.js';

/** A POST whose headers the server has parsed (it answered 100 Continue) and whose body waits for `send`. */
const pendingCreate = (server: TestServer, token: string) =>
  new Promise<{ send: () => void; reply: Promise<{ status: number; connection?: string }> }>(
    (resolveStarted, rejectStarted) => {
      const body = JSON.stringify({ name: 'slow' });
      let resolveReply: (r: { status: number; connection?: string }) => void = () => undefined;
      let rejectReply: (e: unknown) => void = () => undefined;
      const reply = new Promise<{ status: number; connection?: string }>((resolve, reject) => {
        resolveReply = resolve;
        rejectReply = reject;
      });
      reply.catch(() => undefined); // observed by the test later; not an unhandled rejection meanwhile
      const req = http.request(
        {
          host: '127.0.0.1',
          port: server.port,
          method: 'POST',
          path: '/plants',
          agent: false,
          headers: {
            authorization: `Bearer ${token}`,
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
            expect: '100-continue',
          },
        },
        (res) => {
          res.resume();
          res.on('end', () =>
            resolveReply({
              status: res.statusCode ?? 0,
              ...(res.headers.connection === undefined ? {} : { connection: res.headers.connection }),
            }),
          );
        },
      );
      req.on('error', (e) => {
        rejectReply(e);
        rejectStarted(e);
      });
      req.on('continue', () => resolveStarted({ send: () => req.end(body), reply }));
      req.flushHeaders();
    },
  );

describe('drainServer', () => {
  it('turns /readyz 503 at once, lets the in-flight request finish with Connection: close, then the lifecycle closes the store', async () => {
    let shuttingDown = false;
    const server = await startTestServer({ isShuttingDown: () => shuttingDown });
    try {
      const pending = await pendingCreate(server, server.tokens.all);
      let storeClosed = false;
      let outcome: ShutdownOutcome | undefined;
      // As main.ts stacks them: the store first, the listener last, so the listener drains first.
      const lifecycle = createLifecycle(server.logger);
      lifecycle.add('store', async () => {
        storeClosed = true;
        await server.store.close();
      });
      lifecycle.add('HTTP listener', async () => {
        outcome = await drainServer({
          server: server.server,
          logger: server.logger,
          timeoutMs: 30_000,
          beginShutdown: () => {
            shuttingDown = true;
          },
        });
      });
      const done = lifecycle.closeAll();
      expect(shuttingDown).toBe(true);
      expect(server.server.listening).toBe(false);
      expect(storeClosed).toBe(false);
      pending.send();
      expect(await pending.reply).toEqual({ status: 201, connection: 'close' });
      expect(await done).toBe(true);
      expect(outcome).toBe('drained');
      expect(storeClosed).toBe(true);
    } finally {
      await server.close();
    }
  });

  it('cuts connections still busy after the bound and says so', async () => {
    const server = await startTestServer();
    try {
      const pending = await pendingCreate(server, server.tokens.all);
      const outcome = await drainServer({
        server: server.server,
        logger: server.logger,
        timeoutMs: 200,
        beginShutdown: () => undefined,
      });
      expect(outcome).toBe('cut');
      await expect(pending.reply).rejects.toThrow();
      expect(server.logs.some((line) => line.includes('shutdown timeout'))).toBe(true);
    } finally {
      await server.close();
    }
  });
});
