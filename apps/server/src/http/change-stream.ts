import type { ServerResponse } from 'node:http';
import type { ChangeBatch, ChangeEntry, Follower } from '../changes/change-hub.js';
import type { ChangeFeedObserver } from '../ops/metrics.js';

export interface ChangeStreamOptions {
  /** A comment line at least this often (CHANGES_HEARTBEAT_MS). */
  readonly heartbeatMs: number;
  /** Unsent bytes at which the stream is ended (CHANGES_MAX_BUFFER_BYTES). */
  readonly maxBufferBytes: number;
  readonly metrics?: ChangeFeedObserver | undefined;
  /** Called once when the stream ends, whoever ends it. */
  readonly onEnd: () => void;
}

/**
 * One `text/event-stream` answer of `GET /plants/changes`: `retry: 2000`, then each change as an
 * event (`id`, `event`, `data`), written as the hub hands them over, a comment line when nothing
 * else was written for a while. Ended cleanly (the chunked answer finished) at shutdown or when
 * its token is no longer good; cut when its client leaves more than the buffer bound unread.
 */
export class ChangeStream implements Follower {
  private lastWrite = Date.now();
  private ended = false;

  constructor(
    private readonly res: ServerResponse,
    public position: number,
    private readonly options: ChangeStreamOptions,
  ) {
    res.on('close', () => this.finish());
  }

  /** Sends the head, the reconnection delay and the changes read before the stream opened. */
  open(first: readonly ChangeEntry[]): void {
    const { res } = this;
    res.statusCode = 200;
    res.setHeader('Content-Type', 'text/event-stream');
    res.setHeader('Cache-Control', 'no-store');
    // Tells nginx not to buffer the stream (docs/guides/changes.md, "Behind a proxy").
    res.setHeader('X-Accel-Buffering', 'no');
    this.write(`retry: 2000\n\n${first.map((e) => e.event).join('')}`, first);
  }

  deliver(batch: ChangeBatch): void {
    if (this.ended) return;
    const { bytes, entries } = batch.eventsAbove(this.position);
    if (entries.length > 0) this.write(bytes, entries);
  }

  tick(now: number): void {
    // Ticks come about once a second: a comment when the next tick would be past the interval.
    if (!this.ended && now - this.lastWrite >= this.options.heartbeatMs - 1000) this.write(':\n\n', []);
  }

  end(): void {
    if (this.ended) return;
    this.finish();
    this.res.end();
  }

  private write(chunk: string | Buffer, entries: readonly ChangeEntry[]): void {
    const newest = entries.at(-1);
    if (newest !== undefined) this.position = newest.change.seq;
    this.res.write(chunk);
    this.lastWrite = Date.now();
    const oldest = entries[0];
    if (oldest !== undefined) this.options.metrics?.sent(entries.length, (this.lastWrite - oldest.change.at) / 1000);
    if (this.res.writableLength > this.options.maxBufferBytes) {
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
