import { Plant } from '@plant-store/domain';
import type { Change } from '../ports/change-log.js';
import { etagOf } from '../wire/etag.js';

/**
 * A change as JSON (docs/guides/changes.md, "What a change is"), byte for byte what the domain's
 * `changeBody` writes for it: `seq`, `type`, `timestamp` (the commit time, RFC 3339 UTC with
 * milliseconds), `data` (the plant after the change through `Plant`'s encoder, `{id}` for a
 * delete) and `etag` (absent for a delete). Everything in it comes from the log, so every read of
 * a change gives the same bytes.
 */
export const changeJson = (change: Change): string => {
  const head = `{"seq":${change.seq},"type":"${change.type}","timestamp":"${new Date(change.at).toISOString()}","data":`;
  if (change.type === 'plant.deleted') return `${head}{"id":${change.id}}}`;
  return `${head}${JSON.stringify(Plant.encode(change))},"etag":${JSON.stringify(etagOf(change.version))}}`;
};

/** A change as one server-sent event: its number as the id, its type as the event name. */
export const changeEvent = (change: Change, json: string): string => feedEvent(change.seq, change.type, json);

/**
 * `plant.left` (a feed of one tag only): the change took the plant out of the tag. The same `seq`
 * and `timestamp` as the change itself, `data` the id alone, no `etag`.
 */
export const leftJson = (change: Change): string =>
  `{"seq":${change.seq},"type":"plant.left","timestamp":"${new Date(change.at).toISOString()}","data":{"id":${change.id}}}`;

/** A change of a feed of one tag as a server-sent event: `type` is the change's, or `plant.left`. */
export const feedEvent = (seq: number, type: string, json: string): string =>
  `id: ${seq}\nevent: ${type}\ndata: ${json}\n\n`;

/**
 * A bookmark of a stream of one tag: where it stands, so that a client resuming with
 * `Last-Event-ID` does not read again the changes it passed without sending.
 */
export const bookmarkEvent = (seq: number): string => `id: ${seq}\nevent: bookmark\ndata: {"seq":${seq}}\n\n`;
