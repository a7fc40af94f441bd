import { fastifyPeer } from './fastify-app.js';
import type { PeerFactory } from './peer.js';
import { openSqlitePlants } from './sqlite-plants.js';

/**
 * Peer `fastify-sqlite`: Fastify 5 over better-sqlite3 in the file `database` (WAL,
 * `synchronous=NORMAL`, one transaction per request), the table created at start.
 */
export const createFastifySqlitePeer: PeerFactory = async ({ token, database }) =>
  fastifyPeer(token, openSqlitePlants(database));

/**
 * Peer `fastify-sqlite-async`: the same, with the bearer check in an `async` hook and every
 * handler `async` (as the peer was written before issue 34), to show what that style costs.
 */
export const createFastifySqliteAsyncPeer: PeerFactory = async ({ token, database }) =>
  fastifyPeer(token, openSqlitePlants(database), { async: true });
