import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJwtAuthenticator } from '../../src/tokens/jwt-authenticator.js';
import { bearer, expectError, request, startTestServer, type Reply, type TestServer } from './support.js';

const REALM = 'Bearer realm="plant-store"';

const expectChallenge = (reply: Reply, status: number, challenge: string) => {
  expectError(reply, status);
  expect(reply.headers['www-authenticate']).toBe(challenge);
};

describe('bearer tokens (RFC 6750)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  const get = (headers: Record<string, string | string[]>, path = '/plants') => request(server, path, { headers });
  const postBody = (token: string) =>
    request(server, '/plants', {
      method: 'POST',
      headers: { ...bearer(token), 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Scoped' }),
    });

  it('401 without the Authorization header, challenge without an error attribute', async () => {
    expectChallenge(await get({}), 401, REALM);
  });

  it('401 for another scheme, without echoing it', async () => {
    const reply = await get({ authorization: 'Basic dXNlcjpzZWNyZXQ=' });
    expectChallenge(reply, 401, REALM);
    expect(reply.text).not.toContain('dXNlcjpzZWNyZXQ=');
    const bare = await get({ authorization: server.tokens.all });
    expectChallenge(bare, 401, REALM);
    expect(bare.text).not.toContain(server.tokens.all);
  });

  it('accepts the scheme name in any letter case', async () => {
    for (const scheme of ['bearer', 'BEARER', 'BeArEr'])
      expect((await get({ authorization: `${scheme} ${server.tokens.read}` })).status).toBe(200);
  });

  it.each([
    ['Bearer', 'empty bearer token'],
    ['Bearer ', 'empty bearer token'],
    ['Bearer abc def', 'malformed bearer token'],
    ['Bearer abc==x', 'malformed bearer token'],
    ['Bearer a,b', 'malformed bearer token'],
    ['Bearer "quoted"', 'malformed bearer token'],
  ])('400 invalid_request for %j', async (authorization, message) => {
    const reply = await get({ authorization });
    expectChallenge(reply, 400, `${REALM}, error="invalid_request"`);
    expect((reply.json as { message: string }).message).toContain(message);
  });

  it('400 invalid_request for two Authorization headers, even both valid', async () => {
    const reply = await get({ authorization: [`Bearer ${server.tokens.all}`, `Bearer ${server.tokens.all}`] });
    expectChallenge(reply, 400, `${REALM}, error="invalid_request"`);
    expect((reply.json as { message: string }).message).toBe('several Authorization headers; send exactly one');
  });

  it('400 invalid_request for a header together with an access_token query parameter', async () => {
    expectChallenge(
      await get(bearer(server.tokens.all), `/plants?access_token=${server.tokens.all}`),
      400,
      `${REALM}, error="invalid_request"`,
    );
  });

  it('401 for a query token alone: it counts as no credentials', async () => {
    expectChallenge(await get({}, `/plants?access_token=${server.tokens.all}`), 401, REALM);
  });

  it.each([
    ['unknown', 'pst_' + 'A'.repeat(43), 'the bearer token is not known'],
    ['revoked', 'revoked', 'the bearer token has been revoked'],
    ['expired', 'expired', 'the bearer token has expired'],
  ])('401 invalid_token for an %s token', async (_what, which, message) => {
    const token = which in server.tokens ? server.tokens[which as keyof TestServer['tokens']] : which;
    const reply = await get(bearer(token));
    expectChallenge(reply, 401, `${REALM}, error="invalid_token"`);
    expect((reply.json as { message: string }).message).toBe(message);
    expect(reply.text).not.toContain(token);
  });

  it('403 insufficient_scope naming the scope, on every route', async () => {
    expectChallenge(
      await postBody(server.tokens.read),
      403,
      `${REALM}, error="insufficient_scope", scope="plants:write"`,
    );
    expectChallenge(
      await request(server, '/plants/1', { method: 'DELETE', headers: bearer(server.tokens.read) }),
      403,
      `${REALM}, error="insufficient_scope", scope="plants:write"`,
    );
    expectChallenge(
      await get(bearer(server.tokens.write)),
      403,
      `${REALM}, error="insufficient_scope", scope="plants:read"`,
    );
    expectChallenge(
      await get(bearer(server.tokens.write), '/plants/1'),
      403,
      `${REALM}, error="insufficient_scope", scope="plants:read"`,
    );
  });

  it('authenticates before the body: a bad body with no token is 401, not 400/415/413', async () => {
    const bad = await request(server, '/plants', {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'x'.repeat(100_000),
    });
    expectChallenge(bad, 401, REALM);
    const badId = await request(server, '/plants/abc', { method: 'DELETE' });
    expectChallenge(badId, 401, REALM);
    const badQuery = await get({}, '/plants?limit=0');
    expectChallenge(badQuery, 401, REALM);
  });

  it('a 401/403 does not reveal whether a plant exists', async () => {
    expect((await postBody(server.tokens.all)).status).toBe(201);
    const existing = await get(bearer(server.tokens.write), '/plants/1');
    const missing = await get(bearer(server.tokens.write), '/plants/999');
    expect([existing.status, existing.json]).toEqual([missing.status, missing.json]);
  });

  it('never writes a token into a log line', async () => {
    await get(bearer(server.tokens.all));
    await get(bearer(server.tokens.revoked));
    const all = server.logs.join('\n');
    for (const token of Object.values(server.tokens)) expect(all).not.toContain(token);
    expect(all).not.toMatch(/pst_/);
  });
});

describe('JWT (AUTH_MODE=jwt)', () => {
  const secret = 'a-test-secret-of-at-least-32-characters!';
  const key = new TextEncoder().encode(secret);
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      auth: () =>
        createJwtAuthenticator({
          key: { secret },
          issuer: 'https://issuer.test',
          audience: 'plant-store',
          algorithms: ['HS256'],
        }),
    });
  });
  afterAll(() => server.close());

  const sign = (claims: { scope?: string; aud?: string; iss?: string; exp?: number | string }) =>
    new SignJWT(claims.scope === undefined ? {} : { scope: claims.scope })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('user-1')
      .setIssuer(claims.iss ?? 'https://issuer.test')
      .setAudience(claims.aud ?? 'plant-store')
      .setIssuedAt()
      .setExpirationTime(claims.exp ?? '5m')
      .sign(key);

  it('accepts a valid token and takes scopes from the space-separated scope claim', async () => {
    expect(
      (await request(server, '/plants', { headers: bearer(await sign({ scope: 'openid plants:read' })) })).status,
    ).toBe(200);
    const create = await request(server, '/plants', {
      method: 'POST',
      headers: { ...bearer(await sign({ scope: 'plants:read plants:write' })), 'content-type': 'application/json' },
      body: '{"name":"JWT plant"}',
    });
    expect(create.status).toBe(201);
  });

  it('403 when the scope claim lacks the scope', async () => {
    expectChallenge(
      await request(server, '/plants', { headers: bearer(await sign({ scope: 'plants:write' })) }),
      403,
      `${REALM}, error="insufficient_scope", scope="plants:read"`,
    );
  });

  it('401 invalid_token for an expired token', async () => {
    const reply = await request(server, '/plants', {
      headers: bearer(await sign({ scope: 'plants:read', exp: Math.floor(Date.now() / 1000) - 120 })),
    });
    expectChallenge(reply, 401, `${REALM}, error="invalid_token"`);
    expect((reply.json as { message: string }).message).toBe('the bearer token has expired');
  });

  it('401 invalid_token for the wrong audience or issuer', async () => {
    expectChallenge(
      await request(server, '/plants', { headers: bearer(await sign({ scope: 'plants:read', aud: 'someone-else' })) }),
      401,
      `${REALM}, error="invalid_token"`,
    );
    expectChallenge(
      await request(server, '/plants', {
        headers: bearer(await sign({ scope: 'plants:read', iss: 'https://evil.test' })),
      }),
      401,
      `${REALM}, error="invalid_token"`,
    );
  });

  it('401 invalid_token for alg none and for a wrong signature', async () => {
    const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const now = Math.floor(Date.now() / 1000);
    const unsigned = `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ iss: 'https://issuer.test', aud: 'plant-store', exp: now + 300, scope: 'plants:read' })}.`;
    expectChallenge(
      await request(server, '/plants', { headers: bearer(unsigned) }),
      401,
      `${REALM}, error="invalid_token"`,
    );
    const forged = (await sign({ scope: 'plants:read' })).slice(0, -4) + 'AAAA';
    expectChallenge(
      await request(server, '/plants', { headers: bearer(forged) }),
      401,
      `${REALM}, error="invalid_token"`,
    );
  });

  it('refuses an allow-list containing none', () => {
    expect(() =>
      createJwtAuthenticator({ key: { secret }, issuer: 'i', audience: 'a', algorithms: ['HS256', 'none'] }),
    ).toThrow(TypeError);
  });
});

describe('JWT with a JWKS URL', () => {
  let jwks: http.Server;
  let server: TestServer;
  let sign: (aud?: string) => Promise<string>;
  beforeAll(async () => {
    const { publicKey, privateKey } = await generateKeyPair('RS256');
    const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
    jwks = http.createServer((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ keys: [jwk] }));
    });
    await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/jwks.json`;
    server = await startTestServer({
      auth: () =>
        createJwtAuthenticator({
          key: { jwksUrl: url },
          issuer: 'https://idp.test',
          audience: 'plant-store',
          algorithms: ['RS256'],
        }),
    });
    sign = (aud = 'plant-store') =>
      new SignJWT({ scope: 'plants:read' })
        .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
        .setIssuer('https://idp.test')
        .setAudience(aud)
        .setExpirationTime('5m')
        .sign(privateKey);
  });
  afterAll(async () => {
    await server.close();
    jwks.closeAllConnections();
    await new Promise((resolve) => jwks.close(resolve));
  });

  it('verifies with the provider key set and checks the audience', async () => {
    expect((await request(server, '/plants', { headers: bearer(await sign()) })).status).toBe(200);
    expectChallenge(
      await request(server, '/plants', { headers: bearer(await sign('other')) }),
      401,
      `${REALM}, error="invalid_token"`,
    );
  });
});
