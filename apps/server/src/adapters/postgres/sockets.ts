import net from 'node:net';

/** What the `postgres` driver hands its `socket` option: the hosts and ports of the URL, or a Unix socket's path. */
interface SocketTarget {
  readonly host: readonly string[];
  readonly port: readonly number[];
  readonly path?: string | false | undefined;
}

/**
 * The TCP (or Unix) sockets of a store's connections, made by the store so that it can close them.
 *
 * The driver offers no way to drop a connection that stopped answering: a query on it waits for
 * TCP to give up, which with the kernel's retransmissions takes many minutes. With the sockets in
 * hand, the gate's silence check (gate.ts) destroys them; each of their queries then fails as a
 * closed connection and the driver connects afresh.
 *
 * A cut socket is reset, not closed: a reset drops what the kernel still holds to send, so a
 * statement caught in the partition cannot reach the database after its request was answered
 * 503. The backend on the other side learns of it from its TCP keepalive (open.ts sets it per
 * connection), since the reset itself may be lost in the partition.
 */
export class StoreSockets {
  private readonly live = new Set<net.Socket>();
  private next = 0;

  /** The driver's `socket` option. The driver writes its start-up message at once; Node queues it until connected. */
  readonly open = (target: SocketTarget): net.Socket => {
    let socket: net.Socket;
    if (typeof target.path === 'string' && target.path !== '') {
      socket = net.connect(target.path);
    } else {
      const i = this.next++ % Math.max(1, target.host.length);
      socket = net.connect({ host: target.host[i] ?? 'localhost', port: target.port[i] ?? target.port[0] ?? 5432 });
    }
    this.live.add(socket);
    socket.once('close', () => this.live.delete(socket));
    return socket;
  };

  /** Destroys every open socket; returns how many there were. */
  readonly cut = (): number => {
    const count = this.live.size;
    // A socket still connecting has sent nothing but its SYN (Node holds what was written), and
    // `resetAndDestroy` would wait for the connect to finish before acting.
    for (const socket of this.live) {
      if (socket.connecting || socket.remotePort === undefined) socket.destroy();
      else socket.resetAndDestroy();
    }
    return count;
  };

  /** The local ports of the connected TCP sockets: the database sees them as its backends' client_port. */
  ports(): number[] {
    const ports: number[] = [];
    for (const socket of this.live)
      if (socket.localPort !== undefined && !socket.connecting) ports.push(socket.localPort);
    return ports;
  }
}
