import type { Change } from '../ports/change-log.js';
import { etagOf } from '../wire/etag.js';

/**
 * A change as JSON (docs/guides/changes.md, "What a change is"), byte for byte what the domain's
 * `changeBody` writes for it: `seq`, `type`, `timestamp` (the commit time, RFC 3339 UTC with
 * milliseconds), `data` (the plant after the change, `{id}` for a delete) and `etag` (absent for
 * a delete). Everything in it comes from the log, so every read of a change gives the same bytes.
 */
export const changeJson = ({ seq, type, at, id, name, tag, version }: Change): string => {
  const head = `{"seq":${seq},"type":"${type}","timestamp":"${new Date(at).toISOString()}","data":`;
  if (type === 'plant.deleted' || name === undefined || version === undefined) return `${head}{"id":${id}}}`;
  // The log holds what a plant row held: a name and tag the codecs accepted when it was written.
  const plant = JSON.stringify(tag === undefined ? { id, name } : { id, name, tag });
  return `${head}${plant},"etag":${JSON.stringify(etagOf(version))}}`;
};

/** A change as one server-sent event: its number as the id, its type as the event name. */
export const changeEvent = (change: Change, json: string): string =>
  `id: ${change.seq}\nevent: ${change.type}\ndata: ${json}\n\n`;
