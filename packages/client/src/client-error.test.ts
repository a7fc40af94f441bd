import { describe, expect, it } from 'vitest';
import {
  BadRequestError,
  errorForStatus,
  NotFoundError,
  PlantStoreError,
  RateLimitedError,
  ServerError,
  ServiceUnavailableError,
  TimeoutError,
  UnexpectedResponseError,
  ValidationError,
} from './client-error.js';

const details = { method: 'GET', url: 'http://h/plants/1', requestId: 'r1', attempts: 1 };

describe('errorForStatus', () => {
  it('uses the server message and keeps status, body and request id', () => {
    const body = { error: 404, message: 'no plant with id 1' } as never;
    const error = errorForStatus({ status: 404, body }, details);
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({ _tag: 'NotFound', name: 'NotFoundError', message: 'no plant with id 1', status: 404, body, requestId: 'r1' });
  });

  it('falls back to a generic message without a body', () => {
    expect(errorForStatus({ status: 500, body: undefined }, details).message).toBe('GET http://h/plants/1 answered HTTP 500');
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
    expect(error).toMatchObject({ _tag: 'Validation', name: 'ValidationError', message: 'name: required; id: expected an integer' });
    expect(error.status).toBeUndefined();
    expect(error.attempts).toBe(0);
  });
});
