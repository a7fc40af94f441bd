import { setTimeout as sleep } from 'node:timers/promises';
import type { PlantTag } from '@plant-store/domain';
import * as E from 'fp-ts/lib/Either.js';
import type { Change, ChangeLog, ChangesAbove } from '../ports/change-log.js';
import { changeEvent, changeJson, feedEvent, leftJson } from './change-text.js';

/** A change with its JSON and its server-sent event, written once for every reader. */
export interface ChangeEntry {
  readonly change: Change;
  readonly json: string;
  readonly event: string;
}

export const entryOf = (change: Change): ChangeEntry => {
  const json = changeJson(change);
  return { change, json, event: changeEvent(change, json) };
};

/** The change as a feed of its left tag shows it when the plant still exists: `plant.left`. */
const leftEntryOf = (entry: ChangeEntry): ChangeEntry => {
  const json = leftJson(entry.change);
  return { change: entry.change, json, event: feedEvent(entry.change.seq, 'plant.left', json) };
};

/**
 * The entries of `entries` that a feed of each tag shows, by tag (docs/reference/api.md, "Watching
 * a subset"): a change whose plant has the tag after it, as it is; a change that took its plant
 * away from the tag, as `plant.left` (a delete stays `plant.deleted`). A change's left tag is never
 * its tag, so no change is shown twice in one feed.
 */
export const entriesByTag = (entries: readonly ChangeEntry[]): ReadonlyMap<string, readonly ChangeEntry[]> => {
  const byTag = new Map<string, ChangeEntry[]>();
  const add = (tag: string, entry: ChangeEntry): void => {
    const list = byTag.get(tag);
    if (list === undefined) byTag.set(tag, [entry]);
    else list.push(entry);
  };
  for (const entry of entries) {
    const { change } = entry;
    if (change.type !== 'plant.deleted' && change.tag !== undefined) add(change.tag, entry);
    if (change.leftTag !== undefined) add(change.leftTag, change.type === 'plant.deleted' ? entry : leftEntryOf(entry));
  }
  return byTag;
};

/** What a read of the log found for a follower: the changes its feed shows, through which number it looked. */
export const batchOfRead = (
  from: number,
  read: Extract<ChangesAbove, { kind: 'changes' }>,
  limit: number,
): ChangeBatch => {
  const last = read.changes.at(-1);
  // A full page may stop short of the newest change; otherwise every change up to it was looked at.
  const through = read.changes.length >= limit && last !== undefined ? last.seq : Math.max(from, read.newest);
  return new ChangeBatch(from, read.changes.map(entryOf), through);
};

/** `bytes` as one chunk of a chunked HTTP/1.1 body (RFC 9112 §7.1). */
export const chunk = (bytes: Buffer): Buffer =>
  Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`, 'latin1'), bytes, CRLF]);
const CRLF = Buffer.from('\r\n', 'latin1');

/**
 * Changes as the hub read them: the ones numbered above `from`, every change up to `through`
 * looked at (a read of one tag holds only that tag's; the hub's, every change).
 */
export class ChangeBatch {
  private whole: Buffer | undefined;
  private wholeChunk: Buffer | undefined;
  private byTag: ReadonlyMap<string, readonly ChangeEntry[]> | undefined;
  private readonly tagEvents = new Map<string, { bytes?: Buffer; chunk?: Buffer }>();
  readonly through: number;
  constructor(
    readonly from: number,
    readonly entries: readonly ChangeEntry[],
    through?: number,
  ) {
    this.through = through ?? entries.at(-1)?.change.seq ?? from;
  }

  /** The newest number the batch looked at. */
  get last(): number {
    return this.through;
  }

  /** The entries a feed shows: every one, or (with `tag`) those of that tag, `plant.left` included. */
  private selected(tag: PlantTag | undefined): readonly ChangeEntry[] {
    if (tag === undefined) return this.entries;
    this.byTag ??= entriesByTag(this.entries);
    return this.byTag.get(tag) ?? [];
  }

  /**
   * The entries of the feed (all, or of `tag`) above `position` as events in one buffer: made
   * once per feed and shared by every stream that takes the whole batch (most of them), so a
   * change costs one encode however many read it. `chunked`: framed as one HTTP/1.1 chunk (size
   * line, events, CRLF), ready for the socket.
   */
  eventsAbove(
    position: number,
    chunked: boolean,
    tag?: PlantTag,
  ): { readonly bytes: Buffer; readonly entries: readonly ChangeEntry[] } {
    const selected = this.selected(tag);
    if (position <= this.from) {
      if (tag === undefined) {
        if (chunked) this.wholeChunk ??= chunk(this.events());
        return { bytes: chunked ? (this.wholeChunk as Buffer) : this.events(), entries: selected };
      }
      let made = this.tagEvents.get(tag);
      if (made === undefined) this.tagEvents.set(tag, (made = {}));
      made.bytes ??= Buffer.from(selected.map((e) => e.event).join(''));
      if (chunked) made.chunk ??= chunk(made.bytes);
      return { bytes: chunked ? (made.chunk as Buffer) : made.bytes, entries: selected };
    }
    const rest = this.above(position, tag);
    const bytes = Buffer.from(rest.map((e) => e.event).join(''));
    return { bytes: chunked ? chunk(bytes) : bytes, entries: rest };
  }

  private events(): Buffer {
    this.whole ??= Buffer.from(this.entries.map((e) => e.event).join(''));
    return this.whole;
  }

  /** The entries of the feed (all, or of `tag`) numbered above `position`. */
  above(position: number, tag?: PlantTag): readonly ChangeEntry[] {
    const selected = this.selected(tag);
    return position <= this.from ? selected : selected.filter((e) => e.change.seq > position);
  }
}

/** Why the hub let go of a follower. */
export type FollowEnd = 'shutdown' | 'expired' | 'unavailable';

/** A reader of the changes: a stream or a waiting long poll. */
export interface Follower {
  /**
   * The number of the last change it looked at: given to it, or (a feed of one tag) passed
   * because its feed does not show it.
   */
  readonly position: number;
  /** Only the changes of plants with this tag before or after them (`?tag=`); absent: every change. */
  readonly tag?: PlantTag | undefined;
  /** Takes the changes of `batch` above its position that its feed shows (none may be left), in order. */
  deliver(batch: ChangeBatch): void;
  /** The hub lets go of it: at shutdown, or when it cannot follow any more. */
  end(why: FollowEnd): void;
  /** Called about once a second while it is followed (heartbeats, credentials). */
  tick?(now: number): void;
}

export interface ChangeHubOptions {
  /** How often the log is read while anybody follows, for commits of other processes (ms). */
  readonly pollMs?: number;
  /** Changes kept in memory for followers that join a little behind. */
  readonly recentMax?: number;
  /** Changes read from the store per read. */
  readonly pageSize?: number;
  /**
   * While changes keep coming, the pause between two reads per live follower (ms; 0.05: 5 ms for
   * 100 streams, 20 ms for 400 or more, never below 2 ms). Each read writes once to every
   * stream: under a steady flow of commits, fewer and larger writes cost the server far less than
   * one per commit and stream, and a change still reaches the streams within the pause.
   */
  readonly gapPerFollowerMs?: number;
}

/**
 * The change feed of one process (docs/reference/api.md, "Follow the changes"): one reader of the
 * log for every follower. It reads the changes above the newest it has seen when told that this
 * process committed (`poke`, at once) and every `pollMs` while anybody follows (commits of other
 * instances and workers), and hands each batch to every live follower, all of which stand at the
 * newest number it has read. A follower that joins behind catches up from the changes kept in
 * memory or from the store, then joins; the check and the join happen in one turn of the event
 * loop, so no batch can fall between them. Nobody following: no timer, no read, a poke costs a
 * comparison.
 */
export class ChangeHub {
  private readonly pollMs: number;
  private readonly recentMax: number;
  private readonly pageSize: number;
  private readonly gapPerFollowerMs: number;
  private cursor: number | undefined;
  private recent: ChangeEntry[] = [];
  private readonly live = new Set<Follower>();
  private readonly joining = new Set<Follower>();
  private reading = false;
  private again = false;
  private closed = false;
  private poll: NodeJS.Timeout | undefined;
  private ticks: NodeJS.Timeout | undefined;

  constructor(
    private readonly log: ChangeLog,
    options: ChangeHubOptions = {},
  ) {
    this.pollMs = options.pollMs ?? 250;
    this.recentMax = options.recentMax ?? 16_384;
    this.pageSize = options.pageSize ?? 1000;
    this.gapPerFollowerMs = options.gapPerFollowerMs ?? 0.05;
  }

  /** Followers held: live and joining. */
  get size(): number {
    return this.live.size + this.joining.size;
  }

  /** This process committed a change: read the log soon (if anybody follows). */
  poke(): void {
    if (this.size > 0) this.read();
  }

  /**
   * Brings `follower` from its position to the hub's (changes kept in memory, else the store),
   * then keeps it there until `leave` or `end`. Resolves once it is live; a follower the hub had to
   * let go of meanwhile has been told through `end`.
   */
  async follow(follower: Follower): Promise<void> {
    if (this.closed) return follower.end('shutdown');
    this.joining.add(follower);
    this.start();
    try {
      for (;;) {
        if (!this.joining.has(follower)) return; // left meanwhile
        if (this.closed) return follower.end('shutdown');
        const cursor = this.cursor;
        if (cursor !== undefined && follower.position >= cursor) return this.join(follower);
        const kept = cursor === undefined ? -1 : this.keptAbove(follower.position);
        if (kept >= 0) {
          follower.deliver(new ChangeBatch(follower.position, this.recent.slice(kept)));
          return this.join(follower);
        }
        if (cursor === undefined) {
          await this.readNow();
          if (this.cursor === undefined) return follower.end('unavailable');
          continue;
        }
        // A feed of one tag catches up through the log's indexes by tag: what its changes cost.
        const { tag } = follower;
        const from = follower.position;
        const read = await (
          tag === undefined ? this.log.above(from, this.pageSize, 0) : this.log.aboveTagged(from, tag, this.pageSize, 0)
        )();
        if (!this.joining.has(follower)) return;
        if (E.isLeft(read)) return this.drop(follower, 'unavailable');
        if (read.right.kind === 'expired') return this.drop(follower, 'expired');
        if (read.right.kind === 'ahead') return this.join(follower);
        const batch = batchOfRead(from, read.right, this.pageSize);
        if (batch.through > from) follower.deliver(batch);
        else if (follower.position < cursor) {
          // The hub has read further than the store answered us (a replica behind?): wait a moment.
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
    } finally {
      this.joining.delete(follower);
    }
  }

  /** The follower leaves (its client went away). */
  leave(follower: Follower): void {
    this.live.delete(follower);
    this.joining.delete(follower);
    if (this.size === 0) this.stop();
  }

  /** Ends every follower (`shutdown`) and takes no more: the start of a shutdown. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    const all = [...this.live, ...this.joining];
    this.live.clear();
    this.joining.clear();
    this.stop();
    for (const follower of all) follower.end('shutdown');
  }

  private join(follower: Follower): void {
    this.joining.delete(follower);
    this.live.add(follower);
  }

  private drop(follower: Follower, why: FollowEnd): void {
    this.leave(follower);
    follower.end(why);
  }

  /** The index in `recent` of the first change above `position`, if `recent` holds every change above it. */
  private keptAbove(position: number): number {
    const first = this.recent[0];
    if (first === undefined || first.change.seq > position + 1) return -1;
    let lo = 0;
    let hi = this.recent.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.recent[mid] as ChangeEntry).change.seq <= position) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private start(): void {
    if (this.poll !== undefined) return;
    this.poll = setInterval(() => this.read(), this.pollMs);
    this.poll.unref();
    this.ticks = setInterval(() => {
      const now = Date.now();
      for (const follower of this.live) follower.tick?.(now);
    }, 1000);
    this.ticks.unref();
    this.read();
  }

  /** Nobody follows: no timers, and what the hub read is forgotten (the log may forget it too). */
  private stop(): void {
    clearInterval(this.poll);
    clearInterval(this.ticks);
    this.poll = undefined;
    this.ticks = undefined;
    this.cursor = undefined;
    this.recent = [];
  }

  private read(): void {
    void this.readNow();
  }

  /** Reads the log until it has read everything committed when it began; one read at a time. */
  private readNow(): Promise<void> {
    if (this.reading) {
      // The read under way reads once more before it settles: what it settles covers this call.
      this.again = true;
      return this.readDone;
    }
    this.reading = true;
    this.readDone = this.readLoop().finally(() => {
      this.reading = false;
    });
    return this.readDone;
  }

  private readDone: Promise<void> = Promise.resolve();

  private async readLoop(): Promise<void> {
    do {
      this.again = false;
      if (this.closed || this.size === 0) return;
      if (this.cursor === undefined) {
        const newest = await this.log.newest()();
        if (E.isLeft(newest)) return; // the next poll tries again
        this.cursor ??= newest.right;
      }
      const from = this.cursor;
      const read = await this.log.above(from, this.pageSize, 0)();
      if (E.isLeft(read) || this.cursor !== from) return;
      if (read.right.kind !== 'changes') {
        // The log forgot what the hub had not read, or holds fewer changes than it has read (a store
        // restored from an older backup): nobody can follow from here. Followers end; their clients
        // ask again and hear why (410 or 400).
        this.reset(read.right.kind === 'expired' ? 'expired' : 'unavailable');
        return;
      }
      const { changes } = read.right;
      if (changes.length > 0) this.publish(new ChangeBatch(from, changes.map(entryOf)));
      if (changes.length === this.pageSize) this.again = true;
      // Commits keep coming: let them gather before the next read and write (see gapPerFollowerMs).
      if (this.again && changes.length > 0)
        await sleep(Math.min(20, Math.max(2, this.live.size * this.gapPerFollowerMs)));
    } while (this.again);
  }

  private publish(batch: ChangeBatch): void {
    this.cursor = batch.last;
    this.recent.push(...batch.entries);
    if (this.recent.length > this.recentMax) this.recent = this.recent.slice(this.recent.length - this.recentMax);
    for (const follower of this.live) follower.deliver(batch);
  }

  private reset(why: FollowEnd): void {
    this.cursor = undefined;
    this.recent = [];
    const all = [...this.live];
    this.live.clear();
    for (const follower of all) follower.end(why);
  }
}
