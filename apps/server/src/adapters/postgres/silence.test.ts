import net from 'node:net';
import { once } from 'node:events';
import { until } from '@plant-store/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { SilenceWatch, type BackendActivity } from './silence.js';
import { StoreSockets, type WatchedSocket } from './sockets.js';

// The watch over real loopback sockets. The "database" is a TCP server that answers in the wire
// protocol's framing only when told to, and the probe reports what a test says its backends do.
// The database-backed cases are the partition rounds of apps/torture. Every wait is for a condition
// (a probe made, a socket cut), never a window of milliseconds: a loaded machine only makes a wait
// longer, and a check that something did not happen waits until the watch has looked.

const message = (type: string, body = Buffer.alloc(0)): Buffer => {
  const header = Buffer.alloc(5);
  header.write(type, 0, 'latin1');
  header.writeUInt32BE(body.length + 4, 1);
  return Buffer.concat([header, body]);
};
const startup = (): Buffer => {
  const body = Buffer.from('\0\x03\0\0user\0plants\0\0', 'latin1');
  const length = Buffer.alloc(4);
  length.writeUInt32BE(body.length + 4);
  return Buffer.concat([length, body]);
};
const ready = () => message('Z', Buffer.from('I'));
const query = () =>
  Buffer.concat([message('P', Buffer.from('\0SELECT 1\0\0\0')), message('E', Buffer.alloc(5)), message('S')]);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Database {
  readonly port: number;
  /** The server side of the connection whose client port is `port`. */
  peer(port: number): net.Socket;
  /** Whether the connection from `port` has reached the server. */
  has(port: number): boolean;
  close(): Promise<void>;
}

const database = async (): Promise<Database> => {
  const peers = new Map<number, net.Socket>();
  const server = net.createServer((socket) => {
    peers.set(socket.remotePort ?? -1, socket);
    socket.on('error', () => undefined);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as net.AddressInfo).port,
    peer: (port) => {
      const socket = peers.get(port);
      if (socket === undefined) throw new Error(`no connection from port ${port}`);
      return socket;
    },
    has: (port) => peers.has(port),
    close: async () => {
      for (const socket of peers.values()) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
};

/** A connection through StoreSockets, started up and ready (its start-up answered). */
const connect = async (sockets: StoreSockets, db: Database): Promise<WatchedSocket> => {
  const socket = await sockets.open({ host: ['127.0.0.1'], port: [db.port] });
  socket.on('error', () => undefined);
  await once(socket, 'connect');
  const watched = sockets.all().find((s) => s.socket === socket);
  if (watched === undefined) throw new Error('not watched');
  socket.write(startup());
  await until('the database to see the connection', () => db.has(socket.localPort ?? -1));
  db.peer(socket.localPort ?? -1).write(ready());
  await once(socket, 'data');
  return watched;
};

describe('WatchedSocket', () => {
  let db: Database | undefined;
  afterEach(async () => db?.close());

  it('owes nothing while starting (connect_timeout bounds that), then owes one answer per Sync until its ReadyForQuery', async () => {
    db = await database();
    const sockets = new StoreSockets();
    const socket = await sockets.open({ host: ['127.0.0.1'], port: [db.port] });
    await once(socket, 'connect');
    const [watched] = sockets.all();
    socket.write(startup());
    await sleep(30);
    expect(watched?.silentFor(performance.now())).toBe(0);
    const peer = db.peer(socket.localPort ?? -1);
    peer.write(ready());
    await once(socket, 'data');
    // Two queries pipelined, the second written in pieces that split its messages.
    const second = query();
    socket.write(query());
    socket.write(second.subarray(0, 3));
    socket.write(second.subarray(3, 11));
    socket.write(second.subarray(11));
    await sleep(60);
    expect(watched?.silentFor(performance.now())).toBeGreaterThanOrEqual(50);
    // The first answer arrives (its ReadyForQuery split across two packets): the second is still owed, silent from now.
    const answer = Buffer.concat([message('1'), message('2'), message('C', Buffer.from('SELECT 1\0')), ready()]);
    peer.write(answer.subarray(0, answer.length - 2));
    await once(socket, 'data');
    const beforeReady = performance.now();
    peer.write(answer.subarray(answer.length - 2));
    await once(socket, 'data');
    const now = performance.now();
    const silence = watched?.silentFor(now) ?? -1;
    // Still owed, and silent only since the first answer's last byte (not since the queries were sent).
    expect(silence).toBeGreaterThan(0);
    expect(silence).toBeLessThanOrEqual(now - beforeReady);
    peer.write(answer);
    await once(socket, 'data');
    expect(watched?.silentFor(performance.now())).toBe(0);
    socket.destroy();
  });

  it('stops reading a connection that asked for TLS', async () => {
    db = await database();
    const sockets = new StoreSockets();
    const socket = await sockets.open({ host: ['127.0.0.1'], port: [db.port] });
    await once(socket, 'connect');
    const sslRequest = Buffer.alloc(8);
    sslRequest.writeUInt32BE(8, 0);
    sslRequest.writeUInt32BE(80877103, 4);
    socket.write(sslRequest);
    socket.write(Buffer.from('\x16\x03\x01 arbitrary bytes'));
    await sleep(30);
    expect(sockets.all()[0]?.silentFor(performance.now())).toBe(0);
    socket.destroy();
  });
});

describe('SilenceWatch', () => {
  const afterMs = 100;
  let db: Database | undefined;
  let watch: SilenceWatch | undefined;
  afterEach(async () => {
    watch?.close();
    await db?.close();
  });

  const setup = async (probe: (ports: readonly number[]) => Promise<readonly BackendActivity[]>) => {
    db = await database();
    const sockets = new StoreSockets();
    let cutAll = 0;
    /** When each probe was sent, and how many have been answered (or failed) and acted on. */
    const probedAt: number[] = [];
    let settled = 0;
    watch = new SilenceWatch({
      afterMs,
      sockets: () => sockets.all(),
      probe: (ports) => {
        probedAt.push(performance.now());
        // The watch acts on the answer in a later reaction of the same turn: a timer sees it done.
        return probe(ports).finally(() => void setImmediate(() => (settled += 1)));
      },
      cutAll: () => ((cutAll += 1), sockets.cut()),
      isAnswer: (error) => (error as { code?: string }).code === '42501',
      logger: undefined,
    });
    const a = await connect(sockets, db);
    const b = await connect(sockets, db);
    const probes = () => probedAt.length;
    /** Resolves once `n` probes have been answered and acted on: the watch has looked `n` times. */
    const looked = (n: number) =>
      until(`${n} probes answered`, () => settled >= n, 10_000, { detail: () => `${settled} answered` });
    return { a, b, cutAll: () => cutAll, probes, probedAt, looked };
  };
  const activity = (port: number | undefined, running: boolean, sinceChangeMs = 5_000): BackendActivity => ({
    port: port ?? -1,
    running,
    sinceChangeMs,
  });

  it('never probes while the connections are answered or owe nothing', async () => {
    const { a, probes } = await setup(() => Promise.resolve([]));
    const peer = db?.peer(a.port ?? -1);
    // The database answers each query as it arrives; the queries go on for several times afterMs,
    // so a watch that counted from the first query instead of the last answer would probe.
    peer?.on('data', () => peer.write(ready()));
    const start = performance.now();
    while (performance.now() - start < afterMs * 4) {
      a.socket.write(query());
      await once(a.socket, 'data');
      await sleep(10);
    }
    // Idle now, owing nothing, for longer than afterMs.
    await sleep(afterMs * 2);
    expect(probes()).toBe(0);
  });

  it('cuts only the connection whose backend is idle while it waits', async () => {
    const { a, b, cutAll } = await setup((ports) => Promise.resolve(ports.map((port) => activity(port, false))));
    a.socket.write(query());
    await until('the waiting connection to be cut', () => a.socket.destroyed);
    expect(b.socket.destroyed).toBe(false);
    expect(cutAll()).toBe(0);
  });

  it('cuts the connection whose backend is gone', async () => {
    let bPort = -1;
    const { a, b } = await setup(() => Promise.resolve([activity(bPort, false, 0)]));
    bPort = b.port ?? -1;
    a.socket.write(query());
    await until('the waiting connection to be cut', () => a.socket.destroyed);
    expect(b.socket.destroyed).toBe(false);
  });

  it('leaves a slow statement the database shows running, asking again every afterMs', async () => {
    const { a, probedAt, looked } = await setup((ports) => Promise.resolve(ports.map((port) => activity(port, true))));
    a.socket.write(query());
    await looked(3);
    expect(a.socket.destroyed).toBe(false);
    // Asked again only once afterMs has passed since the last answer, however late the timer fires.
    const gaps = probedAt.slice(1).map((at, i) => at - (probedAt[i] ?? 0));
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(afterMs);
  });

  it('waits for a backend that has only just gone idle: its answer may be on its way', async () => {
    const { a, looked } = await setup((ports) => Promise.resolve(ports.map((port) => activity(port, false, 1))));
    a.socket.write(query());
    await looked(2);
    expect(a.socket.destroyed).toBe(false);
  });

  it('cannot tell when none of the connections is seen (a proxy between us), nor on an SQL error', async () => {
    const blind = await setup(() => Promise.resolve([]));
    blind.a.socket.write(query());
    await blind.looked(2);
    expect(blind.a.socket.destroyed).toBe(false);
    watch?.close();
    await db?.close();
    const refused = await setup(() => Promise.reject(Object.assign(new Error('permission denied'), { code: '42501' })));
    refused.a.socket.write(query());
    await refused.looked(2);
    expect(refused.a.socket.destroyed).toBe(false);
    expect(refused.cutAll()).toBe(0);
  });

  it('cuts every connection when the probe gets no answer, or a connection error', async () => {
    const silent = await setup(() => new Promise(() => undefined));
    silent.a.socket.write(query());
    await until('every connection to be cut', () => silent.cutAll() > 0);
    expect(silent.cutAll()).toBe(1);
    expect(silent.a.socket.destroyed).toBe(true);
    expect(silent.b.socket.destroyed).toBe(true);
    watch?.close();
    await db?.close();
    const refused = await setup(() => Promise.reject(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' })));
    refused.a.socket.write(query());
    await until('every connection to be cut', () => refused.cutAll() > 0);
    expect(refused.cutAll()).toBe(1);
  });

  it('does not cut a connection whose answer arrived while the probe ran', async () => {
    const answer = { send: (): void => undefined };
    const { a, looked } = await setup(
      (ports) =>
        new Promise((resolve) => {
          answer.send();
          setTimeout(() => resolve(ports.map((port) => activity(port, false))), 20);
        }),
    );
    answer.send = () => void db?.peer(a.port ?? -1).write(ready());
    a.socket.write(query());
    await looked(1);
    expect(a.socket.destroyed).toBe(false);
  });
});
