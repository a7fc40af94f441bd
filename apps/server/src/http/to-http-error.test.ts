import { idTaken, invalidPlant, plantNotFound, preconditionFailed, type PlantId } from '@plant-store/domain';
import { describe, expect, it } from 'vitest';
import { idsTaken, storeUnavailable } from '../ports/plant-store.js';
import { idRepeated } from '../plants/plant-batch.js';
import {
  authUnavailable,
  insufficientScope,
  invalidAuthRequest,
  invalidToken,
  missingCredentials,
} from '../tokens/auth-error.js';
import {
  expectationFailed,
  headersTooLarge,
  internalError,
  malformedBody,
  malformedRequest,
  methodNotAllowed,
  notReady,
  payloadTooLarge,
  rateLimited,
  requestTimeout,
  routeNotFound,
  unsupportedMediaType,
} from './request-error.js';
import { toHttpError, type AppError } from './to-http-error.js';

const id = 42 as PlantId;

describe('toHttpError', () => {
  it.each<[AppError, number]>([
    [invalidPlant(['name: required']), 400],
    [plantNotFound(id), 404],
    [idTaken(id), 409],
    [preconditionFailed(id, 'If-Match'), 412],
    [preconditionFailed(id, 'If-Match', true), 412],
    [idsTaken([id]), 409],
    [idRepeated(id, [0, 1]), 409],
    [storeUnavailable(new Error('SQLITE_BUSY at /var/lib/db')), 503],
    [missingCredentials('missing'), 401],
    [invalidAuthRequest('bad'), 400],
    [invalidToken('unknown'), 401],
    [insufficientScope('plants:write'), 403],
    [authUnavailable(new Error('jwks down')), 503],
    [routeNotFound('GET', '/x'), 404],
    [methodNotAllowed('PUT', '/plants', 'GET, HEAD, POST, OPTIONS'), 405],
    [unsupportedMediaType('no'), 415],
    [payloadTooLarge(16384), 413],
    [malformedBody('bad json'), 400],
    [malformedRequest('bad line'), 400],
    [headersTooLarge, 431],
    [requestTimeout, 408],
    [expectationFailed('the-impossible'), 417],
    [notReady('shutting down'), 503],
    [rateLimited(5, 2), 429],
    [internalError, 500],
  ])('maps %j to %i', (error, status) => {
    expect(toHttpError(error).status).toBe(status);
  });

  it('says which precondition failed, and when it failed because the plant is missing (a PUT with If-Match)', () => {
    expect(toHttpError(preconditionFailed(id, 'If-Match')).message).toBe(
      'plant 42 has changed: If-Match does not name its current ETag',
    );
    expect(toHttpError(preconditionFailed(id, 'If-None-Match')).message).toBe('plant 42 matches If-None-Match');
    expect(toHttpError(preconditionFailed(id, 'If-Match', true)).message).toBe(
      'no plant with id 42: If-Match needs an existing plant',
    );
  });

  it('asks for a retry after 1 s on every 503', () => {
    for (const error of [
      storeUnavailable(new Error('x')),
      authUnavailable(new Error('x')),
      notReady('shutting down'),
    ]) {
      expect(toHttpError(error).headers?.['Retry-After']).toBe('1');
    }
  });

  it('417 names the expectation as sent, cut when long', () => {
    expect(toHttpError(expectationFailed('the-impossible')).message).toBe(
      'cannot meet the expectation "the-impossible"; only 100-continue is supported',
    );
    expect(toHttpError(expectationFailed('x'.repeat(500))).message).toContain(`"${'x'.repeat(100)}…"`);
  });

  it('never puts a cause (SQL, paths) into the message', () => {
    expect(toHttpError(storeUnavailable(new Error('SQLITE_BUSY at /var/lib/db'))).message).toBe(
      'the store is unavailable; try again',
    );
  });

  it('sets the RFC 6750 challenges and Allow', () => {
    const realm = 'Bearer realm="plant-store"';
    expect(toHttpError(missingCredentials('m')).headers).toEqual({ 'WWW-Authenticate': realm });
    expect(toHttpError(invalidAuthRequest('m')).headers).toEqual({
      'WWW-Authenticate': `${realm}, error="invalid_request"`,
    });
    expect(toHttpError(invalidToken('m')).headers).toEqual({ 'WWW-Authenticate': `${realm}, error="invalid_token"` });
    expect(toHttpError(insufficientScope('plants:read')).headers).toEqual({
      'WWW-Authenticate': `${realm}, error="insufficient_scope", scope="plants:read"`,
    });
    expect(toHttpError(methodNotAllowed('PUT', '/plants', 'GET, POST')).headers).toEqual({ Allow: 'GET, POST' });
  });

  it('names the ids an array gave twice or that are taken, the first 20 of them', () => {
    expect(toHttpError(idRepeated(id, [2, 5])).message).toBe(
      'id 42 is given twice in the array ([2] and [5]); nothing was created',
    );
    expect(toHttpError(idsTaken([id])).message).toBe('a plant with id 42 already exists; nothing was created');
    expect(toHttpError(idsTaken([3, 9] as PlantId[])).message).toBe(
      'plants with ids 3, 9 already exist; nothing was created',
    );
    const many = Array.from({ length: 25 }, (_, i) => (i + 1) as PlantId);
    expect(toHttpError(idsTaken(many)).message).toBe(
      `plants with ids ${many.slice(0, 20).join(', ')} and 5 more already exist; nothing was created`,
    );
  });

  it('answers a rate limit with Retry-After in whole seconds and says which limit', () => {
    expect(toHttpError(rateLimited(5, 2))).toEqual({
      status: 429,
      message: 'rate limit of 5 requests per second exceeded; retry after 2 s',
      headers: { 'Retry-After': '2' },
    });
  });
});
