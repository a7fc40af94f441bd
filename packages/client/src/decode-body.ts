import { ErrorBody, formatErrors } from '@plant-store/domain';
import * as E from 'fp-ts/lib/Either.js';
import type * as t from 'io-ts';

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** Parses a response body as UTF-8 JSON; a failure is one readable line. */
export const parseJson = (body: Uint8Array): E.Either<string, unknown> => {
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    return E.left('the response body is not valid UTF-8');
  }
  if (text.trim() === '') return E.left('the response body is empty, expected JSON');
  try {
    return E.right(JSON.parse(text) as unknown);
  } catch (error) {
    return E.left(`the response body is not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
};

/**
 * Parses and decodes a response body with a domain codec. The left side holds readable lines
 * (`body.name: expected a string, got null`); raw io-ts errors never leave this module.
 */
export const decodeBody =
  <A, O>(codec: t.Type<A, O, unknown>) =>
  (body: Uint8Array): E.Either<readonly string[], A> => {
    const json = parseJson(body);
    if (E.isLeft(json)) return E.left([json.left]);
    const decoded = codec.decode(json.right);
    return E.isLeft(decoded) ? E.left(formatErrors(decoded.left, 'body')) : E.right(decoded.right);
  };

/** The server's `{error, message}` from an error response, when there is a well-formed one. */
export const decodeErrorBody = (body: Uint8Array): ErrorBody | undefined => {
  const decoded = decodeBody(ErrorBody)(body);
  return E.isRight(decoded) ? decoded.right : undefined;
};
