import type { IncomingMessage } from 'node:http';
import * as E from 'fp-ts/lib/Either.js';
import type { PlantVersion, WriteCondition } from '../ports/plant-store.js';
import { versionOfEtag } from '../wire/etag.js';
import { malformedRequest, type RequestError } from './request-error.js';

/**
 * The conditional request headers (RFC 9110 §13.1.1–2), read into the versions they name. An
 * entity tag in a request that is not of the form etagOf writes (wire/etag.ts) names no version
 * of ours, so it never matches.
 */

interface EntityTag {
  readonly weak: boolean;
  /** The opaque-tag, quotes included. */
  readonly opaque: string;
}

// `[W/]"<etagc>*"` with etagc = %x21 / %x23-7E / obs-text (%x80-FF), then OWS and a comma or the end.
const entityTag = /[ \t]*(W\/)?("[\x21\x23-\x7e\x80-\xff]*")[ \t]*(?:,|$)/y;

/**
 * `*`, or a comma-separated list of one or more entity tags (empty list elements are allowed
 * and ignored, RFC 9110 §5.6.1.2); undefined for anything else.
 */
export const parseEntityTags = (value: string): 'any' | readonly EntityTag[] | undefined => {
  if (/^[ \t]*\*[ \t]*$/.test(value)) return 'any';
  const tags: EntityTag[] = [];
  let at = 0;
  while (at < value.length) {
    const rest = /[ \t]*,/y;
    rest.lastIndex = at;
    if (rest.test(value)) {
      at = rest.lastIndex;
      continue;
    }
    entityTag.lastIndex = at;
    const match = entityTag.exec(value);
    if (match === null) {
      // Only trailing whitespace is left?
      return /^[ \t]*$/.test(value.slice(at)) && tags.length > 0 ? tags : undefined;
    }
    tags.push({ weak: match[1] !== undefined, opaque: match[2] as string });
    at = entityTag.lastIndex;
  }
  return tags.length > 0 ? tags : undefined;
};

const header = (req: IncomingMessage, name: 'if-match' | 'if-none-match'): string | undefined => req.headers[name];

const versions = (tags: 'any' | readonly EntityTag[], strong: boolean): 'any' | readonly PlantVersion[] => {
  if (tags === 'any') return 'any';
  const found: PlantVersion[] = [];
  for (const tag of tags) {
    if (strong && tag.weak) continue; // strong comparison: a weak tag never matches
    const version = versionOfEtag(tag.opaque);
    if (version !== undefined) found.push(version);
  }
  return found;
};

/**
 * The request's `If-Match` (compared strongly) and `If-None-Match` (compared weakly) as a
 * WriteCondition, or a 400 naming the malformed header. Several header lines of one name arrive
 * joined by commas (Node), which is the list they make.
 */
export const readConditions = (req: IncomingMessage): E.Either<RequestError, WriteCondition> => {
  const condition: { ifMatch?: 'any' | readonly PlantVersion[]; ifNoneMatch?: 'any' | readonly PlantVersion[] } = {};
  for (const [name, key, strong] of [
    ['If-Match', 'if-match', true],
    ['If-None-Match', 'if-none-match', false],
  ] as const) {
    const value = header(req, key);
    if (value === undefined) continue;
    const tags = parseEntityTags(value);
    if (tags === undefined)
      return E.left(
        malformedRequest(`${name} must be * or a comma-separated list of entity tags such as "1k3" or W/"1k3"`),
      );
    condition[key === 'if-match' ? 'ifMatch' : 'ifNoneMatch'] = versions(tags, strong);
  }
  return E.right(condition);
};
