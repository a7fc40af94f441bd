import http from 'node:http';

/**
 * Watchers of the change feed for the feed bench (feed-main.ts): `count` streams of
 * `GET /plants/changes` held open in this process, each resumed with `Last-Event-ID` when the
 * server ends or cuts it, as a client would. Cheap on purpose: every stream only finds its last
 * event id in each chunk it reads; `sampled` of them also read each event's commit time to
 * measure the delay from commit to receipt.
 */
export interface WatcherStats {
  /** Streams connected (answered 200) at least once. */
  readonly connected: number;
  /** Streams that were ended or cut and connected again. */
  readonly reconnects: number;
  /** The smallest last id among the streams: every stream has read every change up to it. */
  readonly lowestLastId: number;
  /** Events read by the sampled streams, and their delays from commit to receipt (ms). */
  readonly sampledEvents: number;
  readonly delays: { readonly p50: number; readonly p99: number; readonly max: number } | undefined;
}

const ID = Buffer.from('\nid: ');
const TIMESTAMP = Buffer.from('"timestamp":"');

export class Watchers {
  private readonly lastIds: number[];
  private readonly connectedOnce: boolean[];
  private reconnects = 0;
  private delays: number[] = [];
  private closed = false;
  private readonly requests = new Set<http.ClientRequest>();
  private readonly agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });

  constructor(
    private readonly url: string,
    private readonly token: string,
    private readonly count: number,
    private readonly sampled: number,
    since: number,
  ) {
    this.lastIds = Array.from({ length: count }, () => since);
    this.connectedOnce = Array.from({ length: count }, () => false);
  }

  open(): void {
    for (let i = 0; i < this.count; i++) this.connect(i);
  }

  /** Forgets the delays read so far (a new measurement begins). */
  resetDelays(): void {
    this.delays = [];
  }

  stats(): WatcherStats {
    const sorted = [...this.delays].sort((a, b) => a - b);
    const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
    return {
      connected: this.connectedOnce.filter(Boolean).length,
      reconnects: this.reconnects,
      lowestLastId: Math.min(...this.lastIds),
      sampledEvents: sorted.length,
      delays: sorted.length === 0 ? undefined : { p50: at(0.5), p99: at(0.99), max: sorted.at(-1) as number },
    };
  }

  close(): void {
    this.closed = true;
    for (const request of this.requests) request.destroy();
    this.agent.destroy();
  }

  private connect(i: number): void {
    if (this.closed) return;
    const sampled = i < this.sampled;
    const request = http.get(
      `${this.url}/plants/changes`,
      {
        agent: this.agent,
        headers: {
          authorization: `Bearer ${this.token}`,
          accept: 'text/event-stream',
          'last-event-id': String(this.lastIds[i]),
        },
      },
      (response) => {
        if (response.statusCode !== 200) {
          response.resume();
          response.on('end', () => this.again(i, request, 1000));
          return;
        }
        this.connectedOnce[i] = true;
        // An id may span chunks: the end of the previous chunk stays in front (a repeat is harmless).
        let tail: Buffer = Buffer.alloc(0);
        // The sampled streams read whole lines: what follows the last newline waits for the next chunk.
        let partial: Buffer = Buffer.alloc(0);
        response.on('data', (chunk: Buffer) => {
          const now = Date.now();
          const data = tail.length === 0 ? chunk : Buffer.concat([tail, chunk]);
          const lastId = data.lastIndexOf(ID);
          if (lastId !== -1) {
            const end = data.indexOf(10, lastId + ID.length);
            if (end !== -1) this.lastIds[i] = Number(data.toString('latin1', lastId + ID.length, end));
          }
          tail = data.subarray(Math.max(0, data.length - 32));
          if (!sampled) return;
          const lines = partial.length === 0 ? chunk : Buffer.concat([partial, chunk]);
          const complete = lines.lastIndexOf(10) + 1;
          partial = lines.subarray(complete);
          for (let at = lines.indexOf(TIMESTAMP); at !== -1 && at < complete; at = lines.indexOf(TIMESTAMP, at + 1)) {
            const start = at + TIMESTAMP.length;
            this.delays.push(now - Date.parse(lines.toString('latin1', start, start + 24)));
          }
        });
        // 'close' comes however the answer ended: finished, cut by the server, or failed.
        response.on('close', () => this.again(i, request, 0));
        response.on('error', () => undefined);
      },
    );
    this.requests.add(request);
    request.on('error', () => this.again(i, request, 200));
  }

  private again(i: number, request: http.ClientRequest, delayMs: number): void {
    if (!this.requests.delete(request) || this.closed) return;
    this.reconnects += 1;
    setTimeout(() => this.connect(i), delayMs).unref();
  }
}
