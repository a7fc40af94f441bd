import { createFastifyPostgresPeer } from './fastify-postgres.js';
import { createFastifySqliteAsyncPeer, createFastifySqlitePeer } from './fastify-sqlite.js';
import { createKoaMinimalPeer } from './koa-minimal.js';
import type { PeerFactory } from './peer.js';

/**
 * Entry of a peer server process (`node dist/peers/peer-main.js`), started by the bench like the
 * ceiling: PEER names the peer, PEER_TOKEN the one token it accepts, PEER_DATABASE its store (a
 * SQLite file, or a PostgreSQL URL for fastify-postgres); HOST, PORT; SIGTERM closes it.
 */
const PEERS: Readonly<Record<string, PeerFactory>> = {
  'fastify-sqlite': createFastifySqlitePeer,
  'fastify-sqlite-async': createFastifySqliteAsyncPeer,
  'fastify-postgres': createFastifyPostgresPeer,
  'koa-minimal': createKoaMinimalPeer,
};

const name = process.env['PEER'] ?? '';
const token = process.env['PEER_TOKEN'];
const database = process.env['PEER_DATABASE'];
const port = Number(process.env['PORT'] ?? '0');
const host = process.env['HOST'] ?? '127.0.0.1';
const factory = PEERS[name];
if (
  factory === undefined ||
  token === undefined ||
  token === '' ||
  database === undefined ||
  database === '' ||
  !Number.isInteger(port)
) {
  throw new TypeError(
    `peer-main: PEER (one of ${Object.keys(PEERS).join(', ')}), PEER_TOKEN, PEER_DATABASE and an integer PORT are required`,
  );
}

const peer = await factory({ token, database });
const bound = await peer.listen(port, host);
process.stdout.write(`${name} listening on ${bound}\n`);
process.once('SIGTERM', () => {
  peer.close().then(
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(`${name}: close failed: ${String(error)}\n`);
      process.exit(1);
    },
  );
});
