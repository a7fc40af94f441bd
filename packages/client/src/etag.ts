import { describeValue } from '@plant-store/domain';
import * as t from 'io-ts';

// RFC 9110 §8.8.3: entity-tag = [ "W/" ] DQUOTE *etagc DQUOTE, etagc = %x21 / %x23-7E / obs-text.
const ENTITY_TAG = String.raw`(?:W\/)?"[\x21\x23-\x7E\x80-\xFF]*"`;
const CONDITION = new RegExp(String.raw`^(?:\*|${ENTITY_TAG}(?:[ \t]*,[ \t]*${ENTITY_TAG})*)$`);

/**
 * The value of an `If-Match` or `If-None-Match` the client sends (RFC 9110 §13.1.1–2): `*`, or
 * one or more entity-tags separated by commas, each exactly as a server sent it in `ETag` —
 * double quotes included (`"1k3"`, `W/"1k3"`). The client never looks inside an ETag; this
 * only keeps a value that cannot be a condition (a bare `1k3` whose quotes a shell ate, a line
 * break) from being sent.
 */
export const ETagCondition = new t.Type<string, string, unknown>(
  'ETagCondition',
  (u): u is string => typeof u === 'string' && CONDITION.test(u),
  (u, c) =>
    typeof u === 'string' && CONDITION.test(u)
      ? t.success(u)
      : t.failure(
          u,
          c,
          `expected an ETag as the server sent it, in double quotes (such as "1k3" or W/"1k3"), several separated by commas, or *, got ${describeValue(u)}`,
        ),
  t.identity,
);
export type ETagCondition = t.TypeOf<typeof ETagCondition>;
