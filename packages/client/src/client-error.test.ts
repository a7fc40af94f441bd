import { describe, expect, it } from 'vitest';
import {
  AbortError,
  BadRequestError,
  ChangesExpiredError,
  ConflictError,
  ConnectionError,
  errorForStatus,
  ForbiddenError,
  IdempotencyKeyReusedError,
  NotFoundError,
  PayloadTooLargeError,
  PlantStoreError,
  PreconditionFailedError,
  RateLimitedError,
  ServerError,
  ServiceUnavailableError,
  TimeoutError,
  UnauthorizedError,
  UnexpectedResponseError,
  UnsupportedMediaTypeError,
  ValidationError,
  type PlantStoreErrorTag,
} from './client-error.js';

const details = { method: 'GET', url: 'http://h/plants/1', requestId: 'r1', attempts: 1 };

describe('errorForStatus', () => {
  it('uses the server message and keeps status, body and request id', () => {
    const body = { error: 404, message: 'no plant with id 1' } as never;
    const error = errorForStatus({ status: 404, body }, details);
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({
      _tag: 'NotFound',
      name: 'NotFoundError',
      message: 'no plant with id 1',
      status: 404,
      body,
      requestId: 'r1',
    });
  });

  it('falls back to a generic message without a body', () => {
    expect(errorForStatus({ status: 500, body: undefined }, details).message).toBe(
      'GET http://h/plants/1 answered HTTP 500',
    );
    expect(errorForStatus({ status: 500, body: undefined }, {}).message).toBe('the request answered HTTP 500');
  });

  it('carries Retry-After on 429 and 503', () => {
    const limited = errorForStatus({ status: 429, body: undefined, retryAfterMs: 2000 }, details);
    expect(limited).toBeInstanceOf(RateLimitedError);
    expect((limited as RateLimitedError).retryAfterMs).toBe(2000);
    const unavailable = errorForStatus({ status: 503, body: undefined, retryAfterMs: 5 }, details);
    expect(unavailable).toBeInstanceOf(ServiceUnavailableError);
    expect(unavailable).toBeInstanceOf(ServerError);
    expect((unavailable as ServiceUnavailableError).retryAfterMs).toBe(5);
  });

  it('tells a 409 for a taken id, a replayed one and the in-progress one apart', () => {
    const taken = errorForStatus({ status: 409, body: undefined }, details);
    expect(taken).toBeInstanceOf(ConflictError);
    expect(taken).toMatchObject({ replayed: false, retryAfterMs: undefined });
    expect(errorForStatus({ status: 409, body: undefined, replayed: true }, details)).toMatchObject({
      _tag: 'Conflict',
      replayed: true,
    });
    expect(errorForStatus({ status: 409, body: undefined, retryAfterMs: 1000 }, details)).toMatchObject({
      replayed: false,
      retryAfterMs: 1000,
    });
  });

  it('maps 422 to IdempotencyKeyReusedError and keeps the key of the request', () => {
    const body = { error: 422, message: 'Idempotency-Key "k" was already used with a different request' } as never;
    const error = errorForStatus({ status: 422, body }, { ...details, idempotencyKey: 'k' });
    expect(error).toBeInstanceOf(IdempotencyKeyReusedError);
    expect(error).toMatchObject({
      _tag: 'IdempotencyKeyReused',
      name: 'IdempotencyKeyReusedError',
      status: 422,
      idempotencyKey: 'k',
    });
  });

  it('maps 412 to PreconditionFailedError with the server message', () => {
    const body = { error: 412, message: 'plant 1 has changed: If-Match does not name its current ETag' } as never;
    const error = errorForStatus({ status: 412, body }, { ...details, method: 'PATCH', attempts: 2 });
    expect(error).toBeInstanceOf(PreconditionFailedError);
    expect(error).toMatchObject({
      _tag: 'PreconditionFailed',
      name: 'PreconditionFailedError',
      status: 412,
      body,
      method: 'PATCH',
      attempts: 2,
    });
    expect(error.message).toBe('plant 1 has changed: If-Match does not name its current ETag');
  });

  it('maps 410 to ChangesExpiredError with the server message', () => {
    const body = {
      error: 410,
      message: 'the changes after 42 have expired (CHANGES_RETENTION): read the plants again',
    } as never;
    const error = errorForStatus({ status: 410, body }, { ...details, url: 'http://h/plants/changes?since=42' });
    expect(error).toBeInstanceOf(ChangesExpiredError);
    expect(error).toMatchObject({ _tag: 'ChangesExpired', name: 'ChangesExpiredError', status: 410, body });
    expect(error.message).toBe('the changes after 42 have expired (CHANGES_RETENTION): read the plants again');
  });

  it('maps a 408 from the server to TimeoutError with its status', () => {
    const error = errorForStatus({ status: 408, body: undefined }, details);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error.status).toBe(408);
  });

  it('maps any other 5xx to ServerError and any other status to UnexpectedResponseError', () => {
    expect(errorForStatus({ status: 599, body: undefined }, details)._tag).toBe('Server');
    const other = errorForStatus({ status: 418, body: undefined }, details);
    expect(other).toBeInstanceOf(UnexpectedResponseError);
    expect(other.status).toBe(418);
  });
});

describe('ValidationError', () => {
  it('is a BadRequestError with its own tag, the problems and no status', () => {
    const error = new ValidationError(['name: required', 'id: expected an integer']);
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error).toBeInstanceOf(PlantStoreError);
    expect(error).toMatchObject({
      _tag: 'Validation',
      name: 'ValidationError',
      message: 'name: required; id: expected an integer',
    });
    expect(error.status).toBeUndefined();
    expect(error.attempts).toBe(0);
  });
});

describe('the error tree', () => {
  it('has one class per tag (a new tag does not compile until it is listed here)', () => {
    const byTag: Record<PlantStoreErrorTag, PlantStoreError> = {
      BadRequest: new BadRequestError('x'),
      Validation: new ValidationError(['x']),
      Unauthorized: new UnauthorizedError('x'),
      Forbidden: new ForbiddenError('x'),
      NotFound: new NotFoundError('x'),
      Conflict: new ConflictError('x'),
      IdempotencyKeyReused: new IdempotencyKeyReusedError('x'),
      ChangesExpired: new ChangesExpiredError('x'),
      PreconditionFailed: new PreconditionFailedError('x'),
      PayloadTooLarge: new PayloadTooLargeError('x'),
      UnsupportedMediaType: new UnsupportedMediaTypeError('x'),
      RateLimited: new RateLimitedError('x'),
      Server: new ServerError('x'),
      ServiceUnavailable: new ServiceUnavailableError('x'),
      Connection: new ConnectionError('x'),
      Timeout: new TimeoutError('x'),
      Aborted: new AbortError('x'),
      UnexpectedResponse: new UnexpectedResponseError(['x']),
    };
    for (const [tag, error] of Object.entries(byTag)) {
      expect(error._tag).toBe(tag);
      expect(error.name).toBe(error.constructor.name);
      expect(error.idempotencyKey).toBeUndefined();
    }
  });
});
