import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { paths } from './paths.js';
import { runNode } from './processes.js';

/**
 * The receiving end of the server's webhooks for the torture suites: a real node:http server on
 * 127.0.0.1 that records every attempt, answers as the test says (a status after a delay, a dropped
 * connection, or nothing at all until told), counts the attempts of each `webhook-id` in flight at
 * once, and can tell which server process sent an attempt. Also the server's webhooks CLI, run as a
 * child process like the tokens CLI, to register it.
 */

/** How the receiver answers one attempt. */
export type Reaction =
  | { readonly status: number; readonly delayMs?: number }
  /** The connection is destroyed after the delay, without an answer. */
  | { readonly drop: true; readonly delayMs?: number }
  /** No answer until `dropHanging` (or the sender gives up). */
  | 'hang';

export interface Attempt {
  readonly webhookId: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
  readonly arrivedAt: number;
  /** The pid of the server process that sent it (one of `receiver.senders`), when known. */
  readonly senderPid: number | undefined;
  /** The status answered (a 2xx: delivered); undefined while in flight or when it ended without an answer. */
  status: number | undefined;
  /** When its answer was handed to the connection, or the connection closed first. */
  endedAt: number | undefined;
}

const isDelivered = (a: Attempt): boolean => a.status !== undefined && a.status >= 200 && a.status <= 299;

/** 127.0.0.1:port as /proc/net/tcp writes it (little-endian address, big-endian port, hex). */
const procAddress = (port: number): string => `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`;

/**
 * Which of `pids` owns the TCP socket 127.0.0.1:`localPort` → 127.0.0.1:`remotePort` (Linux: the
 * socket's inode in /proc/net/tcp, then the process whose fd table holds it).
 */
const socketOwner = (localPort: number, remotePort: number, pids: readonly number[]): number | undefined => {
  const local = procAddress(localPort);
  const remote = procAddress(remotePort);
  const line = readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .map((l) => l.trim().split(/\s+/))
    .find((fields) => fields[1] === local && fields[2] === remote);
  const inode = line?.[9];
  if (inode === undefined || inode === '0') return undefined;
  const link = `socket:[${inode}]`;
  return pids.find((pid) => {
    try {
      return readdirSync(`/proc/${pid}/fd`).some((fd) => {
        try {
          return readlinkSync(`/proc/${pid}/fd/${fd}`) === link;
        } catch {
          return false; // closed meanwhile
        }
      });
    } catch {
      return false; // the process is gone
    }
  });
};

export class WebhookReceiver {
  readonly attempts: Attempt[] = [];
  /** How the next attempts are answered; change it at any time. */
  react: (attempt: Attempt) => Reaction = () => ({ status: 204 });
  /** Server pids to attribute attempts to (by their connection's owner); empty: not attributed. */
  senders: readonly number[] = [];
  /** The most attempts of one `webhook-id` ever in flight at once, and each time it was more than 1. */
  maxPerId = 0;
  readonly overlaps: string[] = [];
  /** The most attempts in flight at once, all ids together. */
  peak = 0;
  private readonly inFlight = new Map<string, number>();
  /** The attempts of each `webhook-id` in flight now: their connection, and how to end them. */
  private readonly open = new Map<string, Set<{ readonly socket: Socket; end(status: number | undefined): void }>>();
  private current = 0;
  private readonly hanging = new Set<http.ServerResponse>();
  private readonly owners = new WeakMap<Socket, number | undefined>();
  private readonly keys = new Map<string, string>();

  private constructor(
    private readonly server: http.Server,
    readonly port: number,
  ) {}

  /** The endpoint URL to register (the path and query are the receiver's own business). */
  get url(): string {
    return `http://127.0.0.1:${this.port}/hooks/plants?receiver=torture`;
  }

  static async start(): Promise<WebhookReceiver> {
    const server = http.createServer();
    server.keepAliveTimeout = 30_000;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const receiver = new WebhookReceiver(server, (server.address() as AddressInfo).port);
    server.on('connection', (socket: Socket) => {
      if (receiver.senders.length > 0 && socket.remotePort !== undefined) {
        receiver.owners.set(socket, socketOwner(socket.remotePort, receiver.port, receiver.senders));
      }
    });
    server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => receiver.onRequest(req, res));
    return receiver;
  }

  private onRequest(req: http.IncomingMessage, res: http.ServerResponse): void {
    const webhookId = String(req.headers['webhook-id'] ?? '');
    const arrivedAt = Date.now();
    // An earlier attempt whose sender already hung up has ended, even if this process has not yet
    // run its 'close' (emitted a turn later: when the test process lags, a retry's request can be
    // read in the same turn as the earlier attempt's end of stream).
    for (const earlier of this.open.get(webhookId) ?? []) {
      if (earlier.socket.readableEnded || earlier.socket.destroyed) earlier.end(undefined);
    }
    this.begin(webhookId);
    const chunks: Buffer[] = [];
    let attempt: Attempt | undefined;
    let ended = false;
    const open = { socket: req.socket, end: (status: number | undefined) => end(status) };
    const end = (status: number | undefined) => {
      if (ended) return;
      ended = true;
      this.hanging.delete(res);
      this.open.get(webhookId)?.delete(open);
      if (this.open.get(webhookId)?.size === 0) this.open.delete(webhookId);
      this.finish(webhookId);
      if (attempt !== undefined) {
        attempt.status = status;
        attempt.endedAt = Date.now();
      }
    };
    this.open.set(webhookId, (this.open.get(webhookId) ?? new Set()).add(open));
    // In flight from its arrival until its answer is handed over or its connection is gone.
    res.on('finish', () => end(res.statusCode));
    res.on('close', () => end(undefined));
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      attempt = {
        webhookId,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        arrivedAt,
        senderPid: this.owners.get(req.socket),
        status: undefined,
        endedAt: undefined,
      };
      this.attempts.push(attempt);
      if (ended) return;
      const reaction = this.react(attempt);
      if (reaction === 'hang') {
        this.hanging.add(res);
        return;
      }
      const act = () => {
        if (res.destroyed || res.writableEnded) return;
        if ('drop' in reaction) req.socket.destroy();
        else res.writeHead(reaction.status, { 'content-type': 'text/plain' }).end('ok');
      };
      if ((reaction.delayMs ?? 0) <= 0) act();
      else setTimeout(act, reaction.delayMs).unref();
    });
  }

  private begin(webhookId: string): void {
    const n = (this.inFlight.get(webhookId) ?? 0) + 1;
    this.inFlight.set(webhookId, n);
    this.maxPerId = Math.max(this.maxPerId, n);
    if (n > 1) this.overlaps.push(`${webhookId}: ${n} attempts in flight at once at ${new Date().toISOString()}`);
    this.current += 1;
    this.peak = Math.max(this.peak, this.current);
  }

  private finish(webhookId: string): void {
    const n = (this.inFlight.get(webhookId) ?? 1) - 1;
    if (n === 0) this.inFlight.delete(webhookId);
    else this.inFlight.set(webhookId, n);
    this.current -= 1;
  }

  /** Attempts in flight now (arrived, not answered, connection open). */
  inFlightNow(): Attempt[] {
    return this.attempts.filter((a) => a.endedAt === undefined);
  }

  /** Drops the connection of every hanging attempt (a receiver that restarted); returns how many. */
  dropHanging(): number {
    const hanging = [...this.hanging];
    for (const res of hanging) res.socket?.destroy();
    return hanging.length;
  }

  /** The writes (`plant.created:<id>`, see `eventKey`) whose events were answered with a 2xx at least once. */
  deliveredKeys(): Set<string> {
    const keys = new Set<string>();
    for (const a of this.attempts) {
      if (!isDelivered(a)) continue;
      let key = this.keys.get(a.webhookId);
      if (key === undefined) {
        key = eventKey(a.body);
        this.keys.set(a.webhookId, key);
      }
      keys.add(key);
    }
    return keys;
  }

  /** Every attempt answered with a 2xx, grouped by `webhook-id`. */
  delivered(): Map<string, Attempt[]> {
    const byId = new Map<string, Attempt[]>();
    for (const a of this.attempts) if (isDelivered(a)) byId.set(a.webhookId, [...(byId.get(a.webhookId) ?? []), a]);
    return byId;
  }

  close(): Promise<void> {
    this.dropHanging();
    this.server.closeAllConnections();
    return new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** The write an event reports, `<type>:<plant id>` (ids are never reused in these suites); unverified. */
export const eventKey = (body: string): string => {
  try {
    const payload = JSON.parse(body) as { type?: unknown; data?: { id?: unknown } };
    return `${String(payload.type)}:${String(payload.data?.id)}`;
  } catch {
    return `unparseable:${body.slice(0, 100)}`;
  }
};

/** One event as its attempts carried it. */
export interface ReceivedEvent {
  readonly webhookId: string;
  readonly type: string;
  readonly timestamp: string;
  readonly data: { readonly id: number; readonly name?: string; readonly tag?: string };
  /** `plant.created:<id>`: the write it reports (`eventKey`). */
  readonly key: string;
  /** Attempts seen, and those answered 2xx. */
  attempts: number;
  delivered: number;
  firstDeliveredAt: number | undefined;
}

export interface EventCheck {
  /** By `webhook-id`. */
  readonly events: ReadonlyMap<string, ReceivedEvent>;
  /** By the write they report: more than one id for one write is a problem. */
  readonly byKey: ReadonlyMap<string, readonly ReceivedEvent[]>;
  readonly problems: readonly string[];
  /** 2xx answers beyond the first of each event. */
  readonly duplicates: number;
}

const RFC3339_MS_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * Checks every attempt as a Standard Webhooks receiver would (the `standardwebhooks` package with
 * the endpoint's secret; its ±5 min tolerance included) and as docs/reference/webhooks.md says: headers,
 * a `webhook-id` of `msg_` + 1–64 alphanumerics, the same body byte for byte on every attempt of
 * one id, one payload `{type, timestamp, data}`. Groups the events by the write they report.
 */
export const checkAttempts = (attempts: readonly Attempt[], secret: string): EventCheck => {
  const verifier = new Webhook(secret);
  const problems: string[] = [];
  const events = new Map<string, ReceivedEvent>();
  const bodies = new Map<string, string>();
  let duplicates = 0;
  for (const a of attempts) {
    const id = a.webhookId;
    if (!/^msg_[A-Za-z0-9]{1,64}$/.test(id)) problems.push(`webhook-id ${JSON.stringify(id)}`);
    if (a.headers['content-type'] !== 'application/json')
      problems.push(`${id}: content-type ${String(a.headers['content-type'])}`);
    if (!/^plant-store-webhooks\/\S+$/.test(String(a.headers['user-agent'])))
      problems.push(`${id}: user-agent ${String(a.headers['user-agent'])}`);
    const earlier = bodies.get(id);
    if (earlier !== undefined && earlier !== a.body)
      problems.push(`${id}: the body changed between attempts: ${earlier} → ${a.body}`);
    bodies.set(id, a.body);
    let payload: { type?: unknown; timestamp?: unknown; data?: { id?: unknown; name?: unknown; tag?: unknown } };
    try {
      payload = verifier.verify(a.body, {
        'webhook-id': id,
        'webhook-timestamp': String(a.headers['webhook-timestamp']),
        'webhook-signature': String(a.headers['webhook-signature']),
      }) as typeof payload;
    } catch (error) {
      problems.push(`${id}: does not verify (${(error as Error).message}): ${a.body.slice(0, 200)}`);
      continue;
    }
    const { type, timestamp, data } = payload;
    if (
      (type !== 'plant.created' && type !== 'plant.deleted') ||
      typeof timestamp !== 'string' ||
      !RFC3339_MS_Z.test(timestamp) ||
      !Number.isSafeInteger(data?.id)
    ) {
      problems.push(`${id}: unexpected payload ${a.body.slice(0, 200)}`);
      continue;
    }
    let event = events.get(id);
    if (event === undefined) {
      event = {
        webhookId: id,
        type,
        timestamp,
        data: data as ReceivedEvent['data'],
        key: eventKey(a.body),
        attempts: 0,
        delivered: 0,
        firstDeliveredAt: undefined,
      };
      events.set(id, event);
    }
    event.attempts += 1;
    if (isDelivered(a)) {
      event.delivered += 1;
      if (event.delivered > 1) duplicates += 1;
      event.firstDeliveredAt = Math.min(event.firstDeliveredAt ?? Infinity, a.endedAt ?? a.arrivedAt);
    }
  }
  const byKey = new Map<string, ReceivedEvent[]>();
  for (const event of events.values()) byKey.set(event.key, [...(byKey.get(event.key) ?? []), event]);
  for (const [key, list] of byKey) {
    if (list.length > 1)
      problems.push(
        `${key} came as ${list.length} events (${list.map((e) => e.webhookId).join(', ')}): one write, one webhook-id`,
      );
  }
  return { events, byKey, problems, duplicates };
};

/** The built webhooks CLI (`plant-store-webhooks`). */
export const webhooksCli = `${paths.root}apps/server/dist/webhooks/cli.js`;

/** What the CLI and the servers need to accept a loopback `http://` receiver. */
export const loopbackWebhooks = { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true' } as const;

/** Registers `url` (every event type) with the server's CLI against `databaseUrl`; returns the secret it printed. */
export const addEndpoint = async (databaseUrl: string, url: string): Promise<string> => {
  const result = await runNode(webhooksCli, ['add', '--url', url], { DATABASE_URL: databaseUrl, ...loopbackWebhooks });
  // The secret alone on stdout (details on stderr).
  if (result.code !== 0 || !/^whsec_[A-Za-z0-9+/]{43}=\n$/.test(result.stdout)) {
    throw new Error(`webhooks CLI add failed (${result.code}):\n${result.stdout}\n${result.stderr}`);
  }
  return result.stdout.trim();
};

export interface CliDelivery {
  readonly id: number;
  readonly eventId: string;
  readonly eventType: string;
  readonly status: 'pending' | 'delivered' | 'failed';
  readonly attempts: number;
  readonly nextAttemptAt: string | null;
  readonly lastError: string | null;
}

/** `plant-store-webhooks deliveries --json` (newest first, at most 10,000). */
export const listDeliveries = async (databaseUrl: string, status?: CliDelivery['status']): Promise<CliDelivery[]> => {
  const args = ['deliveries', '--json', '--limit', '10000', ...(status === undefined ? [] : ['--status', status])];
  const result = await runNode(webhooksCli, args, { DATABASE_URL: databaseUrl, ...loopbackWebhooks });
  if (result.code !== 0)
    throw new Error(`webhooks CLI deliveries failed (${result.code}):\n${result.stdout}\n${result.stderr}`);
  return JSON.parse(result.stdout) as CliDelivery[];
};
