import { fastifyPeer } from './fastify-app.js';
import type { PeerFactory } from './peer.js';
import { openPostgresPlants } from './postgres-plants.js';

/**
 * Peer `fastify-postgres`: Fastify 5 over porsager `postgres` (a pool of 10) in the database
 * `database` (a URL), its table created at start when missing.
 */
export const createFastifyPostgresPeer: PeerFactory = async ({ token, database }) =>
  fastifyPeer(token, await openPostgresPlants(database));
