import { createFastifyApp } from './fastify-app.js';
import type { PeerFactory } from './peer.js';
import { openPostgresPlants } from './postgres-plants.js';

/**
 * Peer `fastify-postgres` (issue 19): Fastify 5 over porsager `postgres` (a pool of 10) in the
 * database `database` (a URL), its table created at start when missing.
 */
export const createFastifyPostgresPeer: PeerFactory = async ({ token, database }) => {
  const store = await openPostgresPlants(database);
  const app = createFastifyApp(token, store);
  try {
    await app.ready();
  } catch (error) {
    await store.close();
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
      await store.close();
    },
  };
};
