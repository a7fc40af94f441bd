import { fastifyPeer } from './fastify-app.js';
import type { PeerFactory } from './peer.js';
import { openSqlitePlants } from './sqlite-plants.js';

/**
 * Peer `fastify-sqlite`: Fastify 5 over better-sqlite3 in the file `database` (WAL,
 * `synchronous=NORMAL`, one transaction per request), the table created at start.
 */
export const createFastifySqlitePeer: PeerFactory = async ({ token, database }) =>
  fastifyPeer(token, openSqlitePlants(database));
