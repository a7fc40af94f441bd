import * as t from 'io-ts';
import { describeValue } from './describe-value.js';
import { Plant, PlantTag } from './plant.js';
import { MAX_PLANT_ID, parseDecimal, PlantId } from './plant-id.js';
import { isObject, struct } from './struct.js';
import { WebhookTimestamp } from './webhook-event.js';
import { decodeQueryParams, DEFAULT_PAGE_LIMIT, PageLimit, PageLimitFromString, type ListQueryInput } from './wire.js';

/*
 * The change feed's wire format (docs/reference/api.md, "Following changes"): one committed
 * change of a plant, as `GET /plants/changes` sends it in a JSON page or an event's `data`.
 */

export interface ChangeSeqBrand {
  readonly ChangeSeq: unique symbol;
}

/** A change's number: 1 … 2^53−1, increasing in commit order over the whole store. */
export const ChangeSeq = t.brand(
  t.Int,
  (n): n is t.Branded<t.Int, ChangeSeqBrand> => n >= 1 && n <= MAX_PLANT_ID,
  'ChangeSeq',
);
export type ChangeSeq = t.TypeOf<typeof ChangeSeq>;

export interface ChangePositionBrand {
  readonly ChangePosition: unique symbol;
}

/** Where a reader stands in the change log: the number of the last change it has seen (0: none). */
export const ChangePosition = t.brand(
  t.Int,
  (n): n is t.Branded<t.Int, ChangePositionBrand> => n >= 0 && n <= MAX_PLANT_ID,
  'ChangePosition',
);
export type ChangePosition = t.TypeOf<typeof ChangePosition>;

/** `since` or `Last-Event-ID` as sent: decimal digits without sign or leading zero, 0 … 2^53−1. */
export const ChangePositionFromString = new t.Type<ChangePosition, string, unknown>(
  'ChangePositionFromString',
  ChangePosition.is,
  (u, c) => {
    const n = parseDecimal(u, 0);
    return n === undefined
      ? t.failure(
          u,
          c,
          `expected decimal digits without sign or leading zero, from 0 to ${MAX_PLANT_ID}, got ${describeValue(u)}`,
        )
      : t.success(n as ChangePosition);
  },
  String,
);

/** A plant's ETag as the server writes it: its version in base 36, quoted. */
export const CHANGE_ETAG_PATTERN = '^"[0-9a-z]{1,11}"$';
const etagPattern = new RegExp(CHANGE_ETAG_PATTERN);
const ChangeEtag = new t.Type<string, string, unknown>(
  'ETag',
  (u): u is string => typeof u === 'string' && etagPattern.test(u),
  (u, c) =>
    typeof u === 'string' && etagPattern.test(u)
      ? t.success(u)
      : t.failure(u, c, `expected a quoted entity tag such as "1k3", got ${describeValue(u)}`),
  (etag) => etag,
);

/*
 * Changes are read back by clients, so unknown members are dropped ('strip'): a newer server may
 * add some. Member order in each struct is the order on the wire: seq, type, timestamp, data, etag.
 */

/** A create: `data` is the plant as committed, `etag` its ETag. */
export const PlantCreatedChange = struct(
  'PlantCreatedChange',
  { seq: ChangeSeq, type: t.literal('plant.created'), timestamp: WebhookTimestamp, data: Plant, etag: ChangeEtag },
  {},
  'strip',
);
/** An update that changed the plant: `data` is the plant after it, `etag` its new ETag. */
export const PlantUpdatedChange = struct(
  'PlantUpdatedChange',
  { seq: ChangeSeq, type: t.literal('plant.updated'), timestamp: WebhookTimestamp, data: Plant, etag: ChangeEtag },
  {},
  'strip',
);
/** A delete: `data` is `{id}` of the plant that is gone; no ETag. */
export const PlantDeletedChange = struct(
  'PlantDeletedChange',
  {
    seq: ChangeSeq,
    type: t.literal('plant.deleted'),
    timestamp: WebhookTimestamp,
    data: struct('DeletedPlant', { id: PlantId }, {}, 'strip'),
  },
  {},
  'strip',
);

/**
 * In a feed of one tag only (`GET /plants/changes?tag=T`): the change took the plant out of the
 * tag (its tag changed to another, or was removed). The plant still exists; it no longer belongs
 * to the subset. `data` is `{id}`; no ETag.
 */
export const PlantLeftChange = struct(
  'PlantLeftChange',
  {
    seq: ChangeSeq,
    type: t.literal('plant.left'),
    timestamp: WebhookTimestamp,
    data: struct('LeftPlant', { id: PlantId }, {}, 'strip'),
  },
  {},
  'strip',
);

const changeCodecs = {
  'plant.created': PlantCreatedChange,
  'plant.updated': PlantUpdatedChange,
  'plant.deleted': PlantDeletedChange,
  'plant.left': PlantLeftChange,
} as const;
type ChangeCodec = (typeof changeCodecs)[keyof typeof changeCodecs];
const changeTypes = Object.keys(changeCodecs);
const codecOf = (type: unknown): t.Type<t.TypeOf<ChangeCodec>, t.OutputOf<ChangeCodec>, unknown> | undefined =>
  typeof type === 'string' && Object.hasOwn(changeCodecs, type)
    ? (changeCodecs[type as keyof typeof changeCodecs] as t.Type<t.TypeOf<ChangeCodec>, t.OutputOf<ChangeCodec>>)
    : undefined;

/** Any change, told apart by `type`: an unknown type fails as `type: expected one of …`. */
export const Change: t.Type<t.TypeOf<ChangeCodec>, t.OutputOf<ChangeCodec>, unknown> = new t.Type<
  t.TypeOf<ChangeCodec>,
  t.OutputOf<ChangeCodec>,
  unknown
>(
  'Change',
  (u): u is t.TypeOf<ChangeCodec> => isObject(u) && codecOf(u['type'])?.is(u) === true,
  (u, c) => {
    if (!isObject(u)) return t.failure(u, c, `expected a JSON object, got ${describeValue(u)}`);
    const codec = codecOf(u['type']);
    if (codec === undefined) {
      return t.failure(
        u['type'],
        t.appendContext(c, 'type', t.string, u['type']),
        `expected one of ${changeTypes.join(', ')}, got ${describeValue(u['type'])}`,
      );
    }
    return codec.validate(u, c);
  },
  (change) => (codecOf(change.type) as t.Type<t.TypeOf<ChangeCodec>, t.OutputOf<ChangeCodec>>).encode(change),
);
export type Change = t.TypeOf<typeof Change>;

/** The types of change; `plant.left` only in a feed of one tag. */
export const CHANGE_TYPES = changeTypes as readonly Change['type'][];

/** A JSON page of `GET /plants/changes`: changes in `seq` order. */
export const ChangePage = t.readonlyArray(Change, 'ChangePage');
export type ChangePage = t.TypeOf<typeof ChangePage>;

/** The JSON of a change, byte for byte as the server sends it: compact, members in wire order. */
export const changeBody = (change: Change): string => JSON.stringify(Change.encode(change));

export const MAX_CHANGES_WAIT_SECONDS = 30;

/** `wait` as sent: whole seconds, 1 … 30. */
const WaitSecondsFromString = new t.Type<number, string, unknown>(
  'WaitSecondsFromString',
  (u): u is number => t.Int.is(u) && u >= 1 && u <= MAX_CHANGES_WAIT_SECONDS,
  (u, c) =>
    typeof u === 'string' && /^[1-9][0-9]?$/.test(u) && Number(u) <= MAX_CHANGES_WAIT_SECONDS
      ? t.success(Number(u))
      : t.failure(u, c, `expected whole seconds from 1 to ${MAX_CHANGES_WAIT_SECONDS}, got ${describeValue(u)}`),
  String,
);

export interface ChangesQuery {
  /** Changes numbered above this one (absent: only those committed after the request arrived). */
  readonly since?: ChangePosition;
  /** Only the changes of plants with this tag before or after the change (the list's tag rules). */
  readonly tag?: PlantTag;
  /** At most this many changes in a JSON page (the stream ignores it). */
  readonly limit: PageLimit;
  /** Seconds an empty JSON page waits for a change (long polling); absent: answer at once. */
  readonly wait?: number;
}

const changesParams = {
  since: ChangePositionFromString,
  tag: PlantTag,
  limit: PageLimitFromString,
  wait: WaitSecondsFromString,
};

/**
 * The query of `GET /plants/changes` as a parsed query string (a repeated parameter arriving as
 * an array): `since`, `tag`, `limit` (default 100) and `wait`; a repeated or unknown one is
 * refused by name.
 */
export const ChangesQuery = new t.Type<ChangesQuery, Record<string, string>, unknown>(
  'ChangesQuery',
  (u): u is ChangesQuery => isObject(u) && PageLimit.is(u['limit']),
  (u, c) => {
    if (!isObject(u)) return t.failure(u, c, `expected a query string, got ${describeValue(u)}`);
    const output: { -readonly [K in keyof ChangesQuery]: ChangesQuery[K] } = {
      limit: DEFAULT_PAGE_LIMIT as PageLimit,
    };
    const { errors } = decodeQueryParams(changesParams, u as ListQueryInput, c, output);
    return errors.length > 0 ? t.failures(errors) : t.success(output);
  },
  ({ since, tag, limit, wait }) => {
    const encoded: Record<string, string> = {};
    if (since !== undefined) encoded['since'] = String(since);
    if (tag !== undefined) encoded['tag'] = tag;
    encoded['limit'] = String(limit);
    if (wait !== undefined) encoded['wait'] = String(wait);
    return encoded;
  },
);
