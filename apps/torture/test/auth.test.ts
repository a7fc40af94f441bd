import { createHash } from 'node:crypto';
import http from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { send, type SimpleResponse } from './support/http.js';
import { knobs } from './support/knobs.js';
import { startServer, tempDir, type ServerProcess } from './support/processes.js';
import { createToken } from './support/token.js';

/**
 * Auth: tokens guessed at random get only 401s with identical bodies and identical
 * WWW-Authenticate; a wrong first byte and a wrong last byte of a real token take the same time
 * (medians over thousands of alternating tries); and the server's whole log output (stdout +
 * stderr, at LOG_LEVEL=trace) holds no token, no hash of one, no Authorization value.
 */

const TIMING_TRIES = 2_000;
const CANARY = 'torture-auth-canary-0123456789';
const INVALID_TOKEN = 'Bearer realm="plant-store", error="invalid_token"';

describe('bearer tokens under attack', () => {
  let dir: { path: string; remove(): Promise<void> };
  let server: ServerProcess;
  let token: string;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  /** Every secret-looking value this suite sent; none may show up in the log. */
  const sent = new Set<string>();

  beforeAll(async () => {
    dir = await tempDir('auth');
    const databaseUrl = `sqlite:${dir.path}/plant-store.db`;
    // made before the first start, so the server prints no first-run token of its own
    token = await createToken(databaseUrl, 'auth');
    sent.add(token);
    server = await startServer({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'trace' });
  });

  afterAll(async () => {
    agent.destroy();
    await server?.stop();
    await dir?.remove();
  });

  const call = (
    method: string,
    path: string,
    authorization: string | undefined,
    body?: string,
  ): Promise<SimpleResponse> =>
    send({
      agent,
      port: server.port,
      method,
      path,
      headers: {
        ...(authorization === undefined ? {} : { authorization }),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body }),
    });

  // RFC 6750 b64token: 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
  const b64char = fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~+/'.split(''));
  const guessedToken = fc.oneof(
    fc
      .tuple(fc.array(b64char, { minLength: 16, maxLength: 120 }), fc.nat({ max: 2 }))
      .map(([cs, pad]) => cs.join('') + '='.repeat(pad)),
    fc
      .array(fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'.split('')), {
        minLength: 43,
        maxLength: 43,
      })
      .map((cs) => `pst_${cs.join('')}`),
  );

  it('random well-formed tokens get only 401, with one body and one WWW-Authenticate', async () => {
    const bodies = new Set<string>();
    const challenges = new Set<string>();
    const routes: readonly [string, string, string?][] = [
      ['GET', '/plants'],
      ['GET', '/plants/1'],
      ['DELETE', '/plants/1'],
      ['POST', '/plants', '{"name": "guess"}'],
      ['POST', '/plants', 'not even json'],
      ['GET', '/plants/not-an-id'],
    ];
    let tries = 0;
    await fc.assert(
      fc.asyncProperty(
        guessedToken,
        fc.constantFrom(...routes),
        fc.constantFrom('Bearer', 'bearer', 'BEARER'),
        async (guess, [method, path, body], scheme) => {
          fc.pre(guess !== token);
          sent.add(guess);
          const res = await call(method, path, `${scheme} ${guess}`, body);
          tries++;
          if (res.status !== 401) throw new Error(`${method} ${path} with a guessed token → ${res.status} ${res.body}`);
          bodies.add(res.body);
          challenges.add(String(res.headers['www-authenticate']));
        },
      ),
      { numRuns: knobs.inputs },
    );
    expect([...challenges]).toEqual([INVALID_TOKEN]);
    expect(bodies.size, [...bodies].join('\n')).toBe(1);
    expect(JSON.parse([...bodies][0] as string)).toEqual({ error: 401, message: expect.any(String) });
    console.log(
      `auth: ${tries} random tokens over ${routes.length} routes → ${tries} × 401, 1 distinct body, 1 distinct WWW-Authenticate`,
    );
  });

  it('a wrong first byte and a wrong last byte of a real token take the same time (paired medians)', async () => {
    const flip = (c: string): string => (c === 'A' ? 'B' : 'A');
    const wrongFirst = flip(token[0] as string) + token.slice(1);
    const wrongLast = token.slice(0, -1) + flip(token.at(-1) as string);
    sent.add(wrongFirst).add(wrongLast);
    const time = async (candidate: string): Promise<number> => {
      const started = process.hrtime.bigint();
      const res = await call('GET', '/plants/1', `Bearer ${candidate}`);
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (res.status !== 401) throw new Error(`${res.status} for a wrong token`);
      return ms;
    };
    for (let i = 0; i < 200; i++) await time(i % 2 === 0 ? wrongFirst : wrongLast); // warm-up
    const first: number[] = [];
    const last: number[] = [];
    // alternating, so drift of the machine (other processes, GC, CPU frequency) hits both alike
    for (let i = 0; i < TIMING_TRIES; i++) {
      first.push(await time(wrongFirst));
      last.push(await time(wrongLast));
    }
    const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
    const [m1, m2] = [median(first), median(last)];
    // Each try of a wrong first byte is paired with the wrong last byte's try right after it, and
    // the median of the differences within pairs is judged: drift of the machine (another suite
    // beside this one, GC, CPU frequency) moves both tries of a pair alike and cancels out, where
    // it could move two separate medians apart. The bound, 25 % or 0.5 ms whichever is larger,
    // is far above a byte-by-byte comparison over the network; it guards against gross leaks
    // (e.g. a database round trip only for some prefixes).
    const paired = median(first.map((ms, i) => ms - (last[i] as number)));
    const allowed = Math.max(0.25 * Math.min(m1, m2), 0.5);
    console.log(
      `auth timing: median ${m1.toFixed(3)} ms (wrong first byte) vs ${m2.toFixed(3)} ms (wrong last byte) over ${TIMING_TRIES} pairs; ` +
        `median difference within a pair ${paired.toFixed(3)} ms, allowed ${allowed.toFixed(3)} ms`,
    );
    expect(Math.abs(paired)).toBeLessThanOrEqual(allowed);
  });

  it('the real token works, also where it must not be accepted (query), without leaking', async () => {
    expect((await call('GET', '/plants', `Bearer ${token}`)).status).toBe(200);
    const created = await call('POST', '/plants', `Bearer ${token}`, '{"name": "logged?"}');
    expect(created.status).toBe(201);
    // a query token alone counts as none; with a header it is two credentials
    expect((await call('GET', `/plants?access_token=${token}`, undefined)).status).toBe(401);
    expect((await call('GET', `/plants?access_token=${token}`, `Bearer ${token}`)).status).toBe(400);
    // malformed and other schemes, which the server rejects before hashing
    const basic = Buffer.from(`user:${token}`).toString('base64');
    sent.add(basic);
    expect((await call('GET', '/plants', `Basic ${basic}`)).status).toBe(401);
    expect((await call('GET', '/plants', `Bearer ${token} extra`)).status).toBe(400);
    expect((await call('GET', '/plants', `${token}`)).status).toBe(401);
    // a canary the log must show: proves the scan below reads the request log it claims to
    const canary = await send({
      agent,
      port: server.port,
      method: 'GET',
      path: '/plants',
      headers: { authorization: `Bearer ${token}`, 'x-request-id': CANARY },
    });
    expect(canary.headers['x-request-id']).toBe(CANARY);
  });

  it('the whole log output holds no token, no hash of one and no Authorization value', async () => {
    await server.stop(); // flushes the log
    const log = server.output();
    expect(log).toContain(CANARY); // the captured output is the request log
    const leaks: string[] = [];
    for (const secret of sent) {
      const digest = createHash('sha256').update(secret).digest();
      const forms = {
        token: secret,
        'sha256 hex': digest.toString('hex'),
        'sha256 base64': digest.toString('base64'),
        'sha256 base64url': digest.toString('base64url'),
      };
      for (const [what, value] of Object.entries(forms))
        if (log.includes(value)) leaks.push(`${what} of ${secret.slice(0, 6)}…`);
      // the secret part of pst_ tokens, alone
      if (secret.startsWith('pst_') && log.includes(secret.slice(4)))
        leaks.push(`secret part of ${secret.slice(0, 6)}…`);
    }
    const authorizationValues = log.match(/(?:Bearer|Basic)\s+[A-Za-z0-9\-._~+/]{8,}=*/gi) ?? [];
    expect(leaks.slice(0, 20), `${leaks.length} leaks`).toEqual([]);
    expect(authorizationValues).toEqual([]);
    expect(log).not.toMatch(/"authorization"\s*:\s*"(?!\[redacted\])/i);
    console.log(`auth log scan: ${log.split('\n').length} log lines, ${sent.size} secrets × 4 forms searched, 0 found`);
  });
});
