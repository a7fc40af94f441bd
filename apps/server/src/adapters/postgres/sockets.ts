import net from 'node:net';
import { connectWithTls, type TlsPolicy } from './tls.js';

/** What the `postgres` driver hands its `socket` option: the hosts and ports of the URL, or a Unix socket's path. */
interface SocketTarget {
  readonly host: readonly string[];
  readonly port: readonly number[];
  readonly path?: string | false | undefined;
}

/**
 * Splits one direction of a PostgreSQL connection into messages: a type byte and an int32
 * length that counts itself (the first message a client sends has no type byte). Only the types
 * are read; bodies are skipped, however the stream is cut into chunks.
 */
export class Framer {
  private skip = 0;
  private readonly header = Buffer.alloc(5);
  private have = 0;

  constructor(private untyped: boolean) {}

  /** Calls `message(type, length)` for each message that begins in `chunk` (type 0: the untyped first one). */
  feed(chunk: Buffer, message: (type: number, length: number) => void): void {
    let i = 0;
    while (i < chunk.length) {
      if (this.skip > 0) {
        const n = Math.min(this.skip, chunk.length - i);
        this.skip -= n;
        i += n;
        continue;
      }
      const size = this.untyped ? 4 : 5;
      // The header read where it lies when the chunk holds all of it (nearly always), else
      // gathered in this.header across chunks.
      let header = chunk;
      let at = i;
      if (this.have === 0 && i + size <= chunk.length) {
        i += size;
      } else {
        const n = Math.min(size - this.have, chunk.length - i);
        chunk.copy(this.header, this.have, i, i + n);
        this.have += n;
        i += n;
        if (this.have < size) return;
        this.have = 0;
        header = this.header;
        at = 0;
      }
      const length = header.readUInt32BE(at + size - 4);
      const type = this.untyped ? 0 : (header[at] ?? 0);
      this.untyped = false;
      this.skip = Math.max(0, length - 4);
      message(type, length);
    }
  }
}

const SYNC = 'S'.charCodeAt(0);
const QUERY = 'Q'.charCodeAt(0);
const FLUSH = 'H'.charCodeAt(0);
const TERMINATE = 'X'.charCodeAt(0);
const READY = 'Z'.charCodeAt(0);

/**
 * One connection of the store, with what its traffic says: whether the database owes it an
 * answer (a Sync, a simple Query or the start-up message whose ReadyForQuery has not come; a
 * Flush answered by nothing yet), and since when nothing has arrived while one is owed.
 */
export class WatchedSocket {
  private owed = 0;
  private flushOwed = false;
  /** Encrypted (an SSLRequest went out) or ending: the traffic cannot be read, so it is never called silent. */
  private unreadable = false;
  /** Until its first ReadyForQuery the driver's connect_timeout bounds it. */
  private ready = false;
  private silentSince = 0;
  /** When a probe last saw its statement running. */
  runningAt = -Infinity;
  private readonly out = new Framer(true);
  private readonly in = new Framer(false);

  /**
   * `socket` carries the protocol in the clear (over TLS, the TLS socket); `raw` is its TCP
   * connection, whose port the database sees and which a cut resets.
   */
  constructor(
    readonly socket: net.Socket,
    readonly raw: net.Socket = socket,
  ) {
    const write = socket.write.bind(socket) as (...args: unknown[]) => boolean;
    socket.write = ((chunk: unknown, ...rest: unknown[]) => {
      if (chunk instanceof Uint8Array)
        this.sent(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      else this.unreadable = true;
      return write(chunk, ...rest);
    }) as typeof socket.write;
    socket.on('data', (chunk: Buffer) => this.received(chunk));
  }

  /**
   * Ends the connection at once (cutSocket). Over TLS the TLS socket is destroyed too, in the same
   * step: left to learn of the reset by itself, it would fail the driver's next write with an
   * EBADF that it reports as an 'error' no one may be listening for any more.
   */
  cut(): void {
    cutSocket(this.raw);
    if (this.socket !== this.raw) this.socket.destroy();
  }

  /** The local port the database sees as the backend's client_port; undefined until connected. */
  get port(): number | undefined {
    return this.raw.connecting ? undefined : this.raw.localPort;
  }

  /** How long the database has owed this connection an answer without a byte arriving (0: owes none). */
  silentFor(now: number): number {
    if (this.unreadable || !this.ready || (this.owed === 0 && !this.flushOwed)) return 0;
    return now - this.silentSince;
  }

  private awaiting(): boolean {
    return this.owed > 0 || this.flushOwed;
  }

  private sent(chunk: Buffer): void {
    const before = this.awaiting();
    this.out.feed(chunk, (type, length) => {
      if (type === SYNC || type === QUERY) this.owed += 1;
      else if (type === FLUSH) this.flushOwed = true;
      else if (type === TERMINATE) this.unreadable = true;
      // The start-up message, or an SSLRequest (8 bytes) after which the bytes are TLS (the
      // driver never sends one: the store makes its TLS connections itself, tls.ts).
      else if (type === 0) {
        if (length === 8) this.unreadable = true;
        else this.owed += 1;
      }
    });
    if (!before && this.awaiting()) this.silentSince = performance.now();
  }

  private received(chunk: Buffer): void {
    this.flushOwed = false;
    this.in.feed(chunk, (type) => {
      if (type !== READY) return;
      this.owed = Math.max(0, this.owed - 1);
      this.ready = true;
    });
    this.silentSince = performance.now();
  }
}

/**
 * The TCP (or Unix) sockets of a store's connections, made by the store so that it can close them.
 *
 * The driver offers no way to drop a connection that stopped answering: a query on it waits for
 * TCP to give up, which with the kernel's retransmissions takes many minutes. With the sockets in
 * hand, the silence watch (silence.ts) destroys the ones the database no longer answers; each of
 * their queries then fails as a closed connection and the driver connects afresh.
 *
 * A cut socket is reset, not closed: a reset drops what the kernel still holds to send, so a
 * statement caught in the partition cannot reach the database after its request was answered
 * 503. The backend on the other side learns of it from its TCP keepalive (open.ts sets it per
 * connection), since the reset itself may be lost in the partition.
 */
export class StoreSockets {
  private readonly live = new Set<WatchedSocket>();
  /** TCP connections whose TLS is being negotiated. */
  private readonly connecting = new Set<net.Socket>();
  private next = 0;

  /**
   * @param tls how to make each TCP connection's TLS (tls.ts), or undefined for none
   * @param connectTimeoutMs how long a TLS connection may take to be made
   * @param admit asked before each TCP connection is made (fence.ts): an error refuses the host,
   *   and the driver gets a connection failing with it, as from a host that is down
   */
  constructor(
    private readonly tls: TlsPolicy | undefined = undefined,
    private readonly connectTimeoutMs = 5000,
    private readonly admit?: (host: string, port: number) => Promise<Error | undefined>,
  ) {}

  /**
   * The driver's `socket` option. Without TLS the socket is returned at once (the driver writes
   * its start-up message, which Node queues until connected); with TLS once the handshake is
   * done. A connection that cannot be made is returned as a socket that fails with the cause a
   * moment later, so that the driver handles it like any failed connect (and tries again).
   */
  readonly open = (target: SocketTarget): net.Socket | Promise<net.Socket> => {
    if (typeof target.path === 'string' && target.path !== '') return this.watch(net.connect(target.path));
    const i = this.next++ % Math.max(1, target.host.length);
    const host = target.host[i] ?? 'localhost';
    const port = target.port[i] ?? target.port[0] ?? 5432;
    if (this.admit === undefined) return this.connect(host, port);
    return this.admit(host, port).then((refusal) =>
      refusal === undefined ? this.connect(host, port) : failingSocket(refusal),
    );
  };

  private connect(host: string, port: number): net.Socket | Promise<net.Socket> {
    const raw = net.connect({ host, port });
    if (this.tls === undefined) return this.watch(raw);
    // Until its handshake is done, a cut (a partition found) ends it too: the next try then sends
    // a fresh SYN at once, instead of waiting for this one's retransmission.
    this.connecting.add(raw);
    return connectWithTls(raw, { host, port }, this.tls, this.connectTimeoutMs).then(
      ({ socket }) => {
        this.connecting.delete(raw);
        // The driver hears of a failure through the TLS socket it is given; the TCP socket under
        // it may report the same end once more (a cut of a socket already closed), to no one.
        raw.on('error', () => undefined);
        return this.watch(socket, raw);
      },
      (error: unknown) => {
        this.connecting.delete(raw);
        return failingSocket(error);
      },
    );
  }

  private watch(socket: net.Socket, raw: net.Socket = socket): net.Socket {
    const watched = new WatchedSocket(socket, raw);
    this.live.add(watched);
    socket.once('close', () => this.live.delete(watched));
    return socket;
  }

  /** The connections, for the silence watch. */
  all(): readonly WatchedSocket[] {
    return [...this.live];
  }

  /** Destroys every open socket; returns how many there were. */
  readonly cut = (): number => {
    const count = this.live.size + this.connecting.size;
    for (const watched of this.live) watched.cut();
    for (const raw of this.connecting) cutSocket(raw);
    return count;
  };
}

/** A socket that fails with `error` a moment after the driver has it, as a connect that failed. */
const failingSocket = (error: unknown): net.Socket => {
  const failed = new net.Socket();
  setImmediate(() => failed.destroy(error instanceof Error ? error : new Error(String(error))));
  return failed;
};

/**
 * Destroys one socket. One still connecting has sent nothing but its SYN (Node holds what was
 * written), and `resetAndDestroy` would wait for the connect to finish before acting.
 */
export const cutSocket = (socket: net.Socket): void => {
  // Already gone (a TLS connection the driver closed is still listed until its socket's 'close'):
  // resetAndDestroy would report it as an ERR_SOCKET_CLOSED error.
  if (socket.destroyed) return;
  if (socket.connecting || socket.remotePort === undefined) socket.destroy();
  else socket.resetAndDestroy();
};
