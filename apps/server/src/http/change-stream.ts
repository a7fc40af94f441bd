import type { ServerResponse } from 'node:http';
import type { PlantTag } from '@plant-store/domain';
import { chunk, type ChangeBatch, type ChangeEntry, type Follower } from '../changes/change-hub.js';
import { bookmarkEvent } from '../changes/change-text.js';
import type { ChangeFeedObserver } from '../ops/metrics.js';

export interface ChangeStreamOptions {
  /** A comment line (or a bookmark) at least this often (CHANGES_HEARTBEAT_MS). */
  readonly heartbeatMs: number;
  /** A feed of one tag (`?tag=`); absent: every change. */
  readonly tag?: PlantTag | undefined;
  /** Unsent bytes at which the stream is ended (CHANGES_MAX_BUFFER_BYTES). */
  readonly maxBufferBytes: number;
  readonly metrics?: ChangeFeedObserver | undefined;
  /** Called once when the stream ends, whoever ends it. */
  readonly onEnd: () => void;
}

/**
 * One `text/event-stream` answer of `GET /plants/changes`: `retry: 2000`, then each change as an
 * event (`id`, `event`, `data`), written as the hub hands them over, a comment line when nothing
 * else was written for a while. A feed of one tag passes changes it does not show: while it has,
 * it sends a bookmark (`event: bookmark`, `id` and `data` the number it stands at) at least every
 * heartbeat instead of the comment, so that its client resumes from there. Ended cleanly (the
 * chunked answer finished) at shutdown or when its token is no longer good; cut when its client
 * leaves more than the buffer bound unread.
 */
export class ChangeStream implements Follower {
  private lastWrite = Date.now();
  /** When the last bookmark was sent (or the stream opened). */
  private lastMark = Date.now();
  /** The `id` of the last event the client was sent: where it resumes from. */
  private sent: number;
  private ended = false;
  readonly tag: PlantTag | undefined;
  /** Whether the body is chunked (HTTP/1.1; an HTTP/1.0 client's ends with the connection). */
  private chunked = true;

  constructor(
    private readonly res: ServerResponse,
    public position: number,
    private readonly options: ChangeStreamOptions,
  ) {
    this.sent = position;
    this.tag = options.tag;
    res.on('close', () => this.finish());
  }

  /**
   * Sends the head, the reconnection delay and the changes read before the stream opened, which
   * looked at every change up to `through` (a feed of one tag: perhaps past the last it shows).
   */
  open(first: readonly ChangeEntry[], through?: number): void {
    const { res } = this;
    res.statusCode = 200;
    res.setHeader('Content-Type', 'text/event-stream');
    res.setHeader('Cache-Control', 'no-store');
    // Tells nginx not to buffer the stream (docs/guides/changes.md, "Behind a proxy").
    res.setHeader('X-Accel-Buffering', 'no');
    res.flushHeaders();
    // From here on the body goes to the socket as ready-made chunks: a batch's chunk is built once
    // and the same buffer written to every stream that takes it whole, one write each (Node's own
    // res.write frames every write again, in three pieces). `res.end()` still ends the body. A speed
    // trick with its figures and guard in docs/explanation/performance.md ("Change stream written
    // on the socket"); test/changes/change-stream.test.ts fails if the framing or the bound breaks.
    this.chunked = res.chunkedEncoding;
    this.writeText(`retry: 2000\n\n${first.map((e) => e.event).join('')}`, first);
    if (through !== undefined) this.position = Math.max(this.position, through);
  }

  deliver(batch: ChangeBatch): void {
    if (this.ended) return;
    const { bytes, entries } = batch.eventsAbove(this.position, this.chunked, this.tag);
    if (entries.length > 0) this.write(bytes, entries);
    this.position = Math.max(this.position, batch.through);
  }

  tick(now: number): void {
    if (this.ended) return;
    // Ticks come about once a second: a bookmark or a comment when the next tick would be past the interval.
    const due = this.options.heartbeatMs - 1000;
    // Only a stream of one tag passes changes; the whole feed's never sends a bookmark (clients
    // of the release before know no such event).
    if (this.tag !== undefined && this.position > this.sent && now - this.lastMark >= due) {
      const at = this.position;
      this.lastMark = now;
      this.writeText(bookmarkEvent(at), []);
      this.sent = at;
    } else if (now - this.lastWrite >= due) this.writeText(':\n\n', []);
  }

  end(): void {
    if (this.ended) return;
    this.finish();
    this.res.end();
  }

  private writeText(text: string, entries: readonly ChangeEntry[]): void {
    const bytes = Buffer.from(text);
    this.write(this.chunked ? chunk(bytes) : bytes, entries);
  }

  /** Writes body bytes (already a chunk when the answer is chunked) straight to the socket. */
  private write(bytes: Buffer, entries: readonly ChangeEntry[]): void {
    const socket = this.res.socket;
    if (socket === null || socket.destroyed) return this.finish();
    const newest = entries.at(-1);
    if (newest !== undefined) {
      this.position = Math.max(this.position, newest.change.seq);
      this.sent = newest.change.seq;
    }
    socket.write(bytes);
    this.lastWrite = Date.now();
    const oldest = entries[0];
    if (oldest !== undefined) this.options.metrics?.sent(entries.length, (this.lastWrite - oldest.change.at) / 1000);
    if (socket.writableLength > this.options.maxBufferBytes) {
      // The client does not read: it resumes from its Last-Event-ID when it does.
      this.finish();
      this.res.destroy();
    }
  }

  private finish(): void {
    if (this.ended) return;
    this.ended = true;
    this.options.onEnd();
  }
}
