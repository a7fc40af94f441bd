import { once } from 'node:events';
import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startOnFreePort } from '../src/processes.js';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

/** A listener on 127.0.0.1:`port`, as the program under start would bind it; rejects with EADDRINUSE when taken. */
const listenOn = async (port: number): Promise<Server> => {
  const server = createServer();
  server.listen(port, '127.0.0.1');
  await Promise.race([once(server, 'listening'), once(server, 'error').then(([error]) => Promise.reject(error))]);
  servers.push(server);
  return server;
};

describe('startOnFreePort', () => {
  it('starts again on a fresh port when another process took the first before the bind', async () => {
    const tried: number[] = [];
    const started = await startOnFreePort(async (port) => {
      tried.push(port);
      if (tried.length === 1) await listenOn(port); // the other process, between freePort and the bind
      return listenOn(port);
    });
    expect(tried).toHaveLength(2);
    expect(started.listening).toBe(true);
  });

  it('throws any other failure at once', async () => {
    let calls = 0;
    await expect(
      startOnFreePort(() => {
        calls++;
        return Promise.reject(new Error('initdb: bad locale'));
      }),
    ).rejects.toThrow('initdb: bad locale');
    expect(calls).toBe(1);
  });

  it('gives up after the last attempt', async () => {
    let calls = 0;
    await expect(
      startOnFreePort(() => {
        calls++;
        return Promise.reject(new Error('could not bind IPv4 address "127.0.0.1": Address already in use'));
      }, 2),
    ).rejects.toThrow('Address already in use');
    expect(calls).toBe(2);
  });
});
