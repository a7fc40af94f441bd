import { createFastifyApp } from './fastify-app.js';
import type { PeerFactory } from './peer.js';
import { openSqlitePlants } from './sqlite-plants.js';

/**
 * Peer `fastify-sqlite` (issue 19): Fastify 5 over better-sqlite3 in the file `database` (WAL,
 * `synchronous=NORMAL`, one transaction per request), the table created at start.
 */
export const createFastifySqlitePeer: PeerFactory = async ({ token, database }) => {
  const store = openSqlitePlants(database);
  const app = createFastifyApp(token, store);
  try {
    await app.ready();
  } catch (error) {
    store.close();
    throw error;
  }
  return {
    listen: async (port, host) => {
      await app.listen({ port, host });
      const address = app.server.address();
      return typeof address === 'object' && address !== null ? address.port : port;
    },
    close: async () => {
      await app.close();
      store.close();
    },
  };
};
