import { parseIdempotencyKeyField, type IdempotencyKey } from '@plant-store/domain';
import * as E from 'fp-ts/lib/Either.js';
import type { IncomingMessage } from 'node:http';
import { malformedRequest, type RequestError } from './request-error.js';

const NAME = 'idempotency-key';

const malformed = (reason: string): E.Either<RequestError, never> =>
  E.left(malformedRequest(`Idempotency-Key: ${reason}`));

/**
 * The request's `Idempotency-Key`: undefined when there is none, else the key, or a 400 naming
 * the header for a value that is not one key on one field line (docs/reference/api.md: bare or an RFC 8941
 * string of key characters). Node joins repeated lines of an unknown header with ", ", and no key
 * holds a comma, so a well-formed key is read without looking further; only a refused value has
 * its lines counted in `rawHeaders`, for the message.
 */
export const readIdempotencyKey = (req: IncomingMessage): E.Either<RequestError, IdempotencyKey | undefined> => {
  const value = req.headers[NAME];
  if (value === undefined) return E.right(undefined);
  const key = typeof value === 'string' ? parseIdempotencyKeyField(value) : undefined;
  if (key !== undefined) return E.right(key);
  let lines = 0;
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] as string;
    if (name.length === NAME.length && name.toLowerCase() === NAME) lines += 1;
  }
  if (lines > 1) return malformed(`sent on ${lines} lines; send one key on one line`);
  if (value === '') return malformed('empty; send 1–255 characters from A–Z a–z 0–9 . _ : ~ + / = -');
  return malformed(
    'expected 1–255 characters from A–Z a–z 0–9 . _ : ~ + / = -, bare or in double quotes, with no parameters',
  );
};
