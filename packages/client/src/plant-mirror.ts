/**
 * `client.plants.mirror()`: a copy of the whole store (or of the plants with one tag), made by
 * listing every plant and kept up to date by the change feed ("List, then follow" in
 * docs/guides/changes.md).
 */
import type { Change, ChangePosition, PlantId, PlantSort } from '@plant-store/domain';
import type { ChangesOptions, FeedItem } from './change-feed.js';
import { AbortError, ChangesExpiredError, UnexpectedResponseError } from './client-error.js';
import { advanceProblem } from './list-page.js';
import type { MirroredPlant, MirrorOptions, NextPageQuery, PlantMirror, PlantsApi } from './plants-api.js';
import { withMetadata } from './with-metadata.js';

/** Every plant, each with the `X-Change-Seq` of the page it came from. */
interface Listing {
  readonly plants: Map<PlantId, MirroredPlant>;
  /** id → the `changeSeq` of the plant's page: its changes up to there are in the listing already. */
  readonly listedAt: Map<PlantId, number>;
  /** The first page's `changeSeq`: where following starts. */
  readonly first: ChangePosition;
  /** The largest page `changeSeq`: past it, no change is skipped. */
  readonly highest: number;
}

const noop = (): void => undefined;

/** What a mirror reads: the list, and the feed with its bookmarks. */
export interface MirrorSource {
  readonly list: PlantsApi['list'];
  readonly items: (options: ChangesOptions) => AsyncIterable<FeedItem>;
}

/** Starts a mirror over `plants.list` and the change feed (with `tag`: of the plants with that tag). */
export const startMirror = (plants: MirrorSource, options: MirrorOptions = {}): PlantMirror => {
  const controller = new AbortController();
  const signal =
    options.signal === undefined ? controller.signal : AbortSignal.any([controller.signal, options.signal]);
  const limit = options.limit ?? 1000;
  const { tag } = options;
  const copy = new Map<PlantId, MirroredPlant>();
  let position = 0 as ChangePosition;

  const list = async (): Promise<Listing> => {
    const listed = new Map<PlantId, MirroredPlant>();
    const listedAt = new Map<PlantId, number>();
    let first: ChangePosition | undefined;
    let highest = 0;
    let previous: NextPageQuery<PlantSort> | undefined;
    let page = await plants.list(tag === undefined ? { limit } : { limit, tag }, { signal });
    for (;;) {
      const seq = page.changeSeq;
      if (seq === undefined) {
        throw new UnexpectedResponseError([
          'the list page has no X-Change-Seq header: this server does not offer the change feed',
        ]);
      }
      first ??= seq;
      highest = Math.max(highest, seq);
      for (const plant of page.plants) {
        listed.set(plant.id, withMetadata(plant, { etag: undefined }));
        listedAt.set(plant.id, seq);
      }
      const next = page.next;
      if (next === undefined) return { plants: listed, listedAt, first, highest };
      const stuck = advanceProblem(previous, next);
      if (stuck !== undefined) throw new UnexpectedResponseError([`the Link rel="next" does not advance (${stuck})`]);
      previous = next;
      page = await plants.list(next, { signal });
    }
  };

  const apply = (change: Change): void => {
    // A plant that left the tag is gone from a copy of the tag, like a deleted one.
    if (change.type === 'plant.deleted' || change.type === 'plant.left') copy.delete(change.data.id);
    else copy.set(change.data.id, withMetadata(change.data, { etag: change.etag }));
  };

  let markReady: () => void = noop;
  let failReady: (error: unknown) => void = noop;
  let isReady = false;
  const ready = new Promise<void>((resolve, reject) => {
    markReady = () => {
      isReady = true;
      resolve();
    };
    failReady = reject;
  });

  const run = async (): Promise<void> => {
    for (;;) {
      let listing: Listing;
      try {
        listing = await list();
      } catch (error) {
        // Only a signal aborts a list: ours, the caller's or the client's.
        if (error instanceof AbortError) return;
        throw error;
      }
      // Swapped in at once: a reader never sees a half-filled copy.
      copy.clear();
      for (const [id, plant] of listing.plants) copy.set(id, plant);
      position = listing.first;
      const { listedAt, highest } = listing;
      await options.onReload?.();
      markReady();
      try {
        for await (const item of plants.items({
          since: listing.first,
          signal,
          ...(tag === undefined ? {} : { tag }),
        })) {
          // A bookmark: every change up to it concerned other plants.
          const change = item.type === 'bookmark' ? undefined : item;
          // A plant's page already showed its changes up to the page's number.
          const shown = change === undefined ? undefined : listedAt.get(change.data.id);
          const skip = change === undefined || (shown !== undefined && change.seq <= shown);
          if (!skip) apply(change);
          position = item.seq as number as ChangePosition;
          if (item.seq >= highest) listedAt.clear();
          if (!skip) await options.onChange?.(change);
        }
        // The feed ends quietly only when a signal stopped it.
        return;
      } catch (error) {
        // Gone are the changes after `position`: read the plants afresh and follow from there.
        if (error instanceof ChangesExpiredError) continue;
        throw error;
      }
    }
  };

  const done = run().then(
    () => {
      if (!isReady) failReady(new AbortError('the mirror was closed before its first list was read'));
    },
    (error: unknown) => {
      if (!isReady) failReady(error);
      throw error;
    },
  );
  ready.catch(noop);
  done.catch(noop);

  return {
    plants: copy,
    get position() {
      return position;
    },
    ready,
    done,
    close: () => {
      controller.abort();
      return done.then(noop, noop);
    },
  };
};
