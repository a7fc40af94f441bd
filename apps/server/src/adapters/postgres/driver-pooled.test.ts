import net from 'node:net';
import postgres from 'postgres';
import { afterEach, describe, expect, it } from 'vitest';
import { driverOptions } from './driver.js';
import { Framer, StoreSockets } from './sockets.js';

// Behind a pooler in transaction mode (driver.ts, `pooled`) every statement must reach the
// database as one run of messages ending in its Sync. Unpatched, postgres 3.4.9 sends a statement
// with parameters and no prepared name as Parse, Describe, Flush, waits for the parameter types,
// then sends Bind, Execute, Sync. PgBouncer 1.18 takes that Flush for the end of a transaction:
// it hands the backend to another client, drops the answer to the Describe as coming from a
// backend no client holds ("got packet 't' from server when not linked", then "idle server got
// dirty"), and the connection waits for ever (apps/torture's pooler round: whole instances hung
// with a pool smaller than the clients). The patch in patches/ sends such a statement in one go,
// as the driver already does one without parameters; these tests hold the installed driver to it,
// over a fake server that records what it is sent.

const READY = Buffer.from([0x5a, 0, 0, 0, 5, 0x49]); // ReadyForQuery, idle
const message = (type: string, body: Buffer = Buffer.alloc(0)): Buffer => {
  const header = Buffer.alloc(5);
  header.write(type, 0, 'latin1');
  header.writeUInt32BE(body.length + 4, 1);
  return Buffer.concat([header, body]);
};
const int32 = (n: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
};

/** A PostgreSQL server that trusts everyone, answers every statement with no rows, and records each burst of messages it gets. */
const fakeServer = async (): Promise<{ port: number; bursts: string[][]; close: () => Promise<void> }> => {
  const bursts: string[][] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    const framer = new Framer(true);
    let pending: string[] = [];
    socket.on('data', (chunk: Buffer) => {
      const types: string[] = [];
      framer.feed(chunk, (type) => types.push(type === 0 ? 'startup' : String.fromCharCode(type)));
      if (types.length > 0 && types[0] !== 'startup') bursts.push(types);
      const out: Buffer[] = [];
      for (const type of types) {
        if (type === 'startup') out.push(message('R', int32(0)), READY);
        else if (type === 'X') socket.end();
        else if (type === 'H' || type === 'S') {
          for (const asked of pending) {
            if (asked === 'P') out.push(message('1'));
            // One parameter, int4; no columns.
            else if (asked === 'D') out.push(message('t', Buffer.from([0, 1, 0, 0, 0, 23])), message('n'));
            else if (asked === 'B') out.push(message('2'));
            else if (asked === 'E') out.push(message('C', Buffer.from('SELECT 0\0')));
          }
          pending = [];
          if (type === 'S') out.push(READY);
        } else pending.push(type);
      }
      if (out.length > 0) socket.write(Buffer.concat(out));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    port,
    bursts,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
};

describe('the PostgreSQL driver behind a pooler (patched)', () => {
  const ends: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const end of ends.splice(0)) await end();
  });

  const open = async (pooled: boolean) => {
    const server = await fakeServer();
    const sql = postgres(`postgres://app@127.0.0.1:${server.port}/plants`, {
      ...driverOptions({ sockets: new StoreSockets(), connectTimeoutSeconds: 2, applicationName: 'test', pooled }),
      max: 1,
    });
    ends.push(() => sql.end({ timeout: 0 }), server.close);
    return { sql, bursts: server.bursts };
  };

  it('sends a statement with parameters as Parse, Describe, Bind, Execute, Sync at once: no Flush', async () => {
    const { sql, bursts } = await open(true);
    await sql`SELECT ${7}::int4 AS n WHERE false`;
    await sql`SELECT ${'x'}::text AS s, ${1}::int8 AS id WHERE false`;
    expect(bursts).toEqual([
      ['P', 'D', 'B', 'E', 'S'],
      ['P', 'D', 'B', 'E', 'S'],
    ]);
  });

  it('still describes first when it prepares (a direct connection)', async () => {
    const { sql, bursts } = await open(false);
    await sql`SELECT ${7}::int4 AS n WHERE false`;
    expect(bursts[0]).toEqual(['P', 'D', 'H']);
  });
});
