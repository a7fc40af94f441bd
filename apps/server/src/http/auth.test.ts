import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { invalidAuthRequest, missingCredentials } from '../tokens/auth-error.js';
import { authorizationValues, readBearerToken } from './auth.js';

describe('authorizationValues', () => {
  it('collects every Authorization header, in any letter case, and nothing else', () => {
    expect(
      authorizationValues([
        'Host',
        'x',
        'authorization',
        'Bearer a',
        'X-Authorization',
        'no',
        'AUTHORIZATION',
        'Bearer b',
      ]),
    ).toEqual(['Bearer a', 'Bearer b']);
    expect(authorizationValues(['Host', 'x'])).toEqual([]);
  });
});

describe('readBearerToken', () => {
  it('returns the token of a single Bearer header, scheme in any case, several spaces allowed', () => {
    expect(readBearerToken(['Bearer abc'], false)).toEqual(E.right('abc'));
    expect(readBearerToken(['bEARER   a.b-c_d~e+f/g=='], false)).toEqual(E.right('a.b-c_d~e+f/g=='));
  });

  it('counts no header as no credentials, with or without a query token', () => {
    expect(readBearerToken([], false)).toEqual(
      E.left(missingCredentials('missing bearer token; send Authorization: Bearer <token>')),
    );
    expect(E.isLeft(readBearerToken([], true)) && readBearerToken([], true)).toMatchObject({
      left: { _tag: 'MissingCredentials' },
    });
  });

  it('counts another scheme as no credentials, without echoing it', () => {
    expect(readBearerToken(['Basic dXNlcg=='], false)).toEqual(
      E.left(missingCredentials('expected the Bearer authentication scheme')),
    );
    expect(readBearerToken(['pst_secret'], false)).toEqual(
      E.left(missingCredentials('expected the Bearer authentication scheme')),
    );
    expect(readBearerToken(['Bearerabc'], false)).toMatchObject({ left: { _tag: 'MissingCredentials' } });
  });

  it.each([['Bearer'], ['Bearer '], ['Bearer a b'], ['Bearer =abc'], ['Bearer ab=c'], ['Bearer ä'], ['Bearer a\tb']])(
    'rejects %j as invalid_request',
    (value) => {
      expect(readBearerToken([value], false)).toMatchObject({ left: { _tag: 'InvalidAuthRequest' } });
    },
  );

  it('rejects several credentials as invalid_request', () => {
    expect(readBearerToken(['Bearer a', 'Bearer a'], false)).toEqual(
      E.left(invalidAuthRequest('several Authorization headers; send exactly one')),
    );
    expect(readBearerToken(['Bearer a'], true)).toMatchObject({ left: { _tag: 'InvalidAuthRequest' } });
  });
});
