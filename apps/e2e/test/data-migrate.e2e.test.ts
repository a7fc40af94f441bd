import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { freshPostgresUrl, until, type FreshPostgres } from '@plant-store/testkit';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paths } from './support/paths.js';
import { runNode, startServer, tempDir, type ServerProcess } from './support/processes.js';
import { createToken } from './support/token.js';

// A store made by every part of the API and the operator CLIs — tokens (one revoked, one with an
// expiry), a webhook endpoint with pending deliveries and their failed attempts, keyed creates,
// patched and deleted plants — moved SQLite → PostgreSQL → SQLite with `plant-store-data migrate`.
// A server on each target must answer as the first one did: the same plants, ETags and name
// order, the same keyed replays, the same tokens, no id reused, and the pending events delivered
// with the endpoint's secret.

/** The events the source store's API calls make (a create, update or delete each), one delivery each. */
const SOURCE_EVENTS = 19;
/** Each server on a moved store creates and deletes a plant (expectSameAnswers): two events more. */
const EVENTS = SOURCE_EVENTS + 2 + 2;
const WEBHOOKS = {
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOW_PRIVATE: 'true',
  // Fifty retries a second apart: every event is still pending when the last server starts.
  WEBHOOK_RETRY_SCHEDULE: Array.from({ length: 50 }, () => '1s').join(','),
};

interface Answer {
  readonly status: number;
  readonly etag: string | null;
  readonly location: string | null;
  readonly replayed: string | null;
  readonly total: string | null;
  readonly body: string;
}

const call = async (
  server: ServerProcess,
  token: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> => {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return {
    status: response.status,
    etag: response.headers.get('etag'),
    location: response.headers.get('location'),
    replayed: response.headers.get('idempotent-replayed'),
    total: response.headers.get('x-total-count'),
    body: await response.text(),
  };
};

const data = (args: readonly string[]) => runNode(paths.dataCli, args, {}, 120_000);

interface Seen {
  readonly plants: readonly { readonly id: number }[];
  readonly gets: readonly Answer[];
  readonly byName: string;
  readonly search: Answer;
  readonly count: Answer;
  readonly replays: readonly Answer[];
}

describe('plant-store-data migrate, SQLite → PostgreSQL → SQLite, of a store every part of the API wrote', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let pg: FreshPostgres;
  let receiver: http.Server;
  let accepting = false;
  const delivered = new Map<string, { body: string; headers: Record<string, string> }>();
  /** The events the receiver refused (503) while it was not accepting, and how many refusals in all. */
  const refused = new Set<string>();
  let refusals = 0;
  let hookUrl = '';
  let secret = '';
  const tokens = { write: '', read: '', revoked: '', expiring: '' };
  const keyed: { key: string; body: { name: string; tag?: string } }[] = [];
  let highest = 0;
  let before: Seen;

  const look = async (server: ServerProcess): Promise<Seen> => {
    const list = await call(server, tokens.read, 'GET', '/plants?limit=1000');
    const plants = JSON.parse(list.body) as { id: number }[];
    const gets = await Promise.all(plants.map((p) => call(server, tokens.read, 'GET', `/plants/${p.id}`)));
    const byName = (await call(server, tokens.read, 'GET', '/plants?sort=name&limit=1000')).body;
    const search = await call(server, tokens.read, 'GET', '/plants?q=FERN&limit=1000', undefined, {
      prefer: 'count=exact',
    });
    const count = await call(server, tokens.read, 'GET', '/plants?tag=shade&limit=1', undefined, {
      prefer: 'count=exact',
    });
    const replays = await Promise.all(
      keyed.map((k) => call(server, tokens.write, 'POST', '/plants', k.body, { 'idempotency-key': k.key })),
    );
    return { plants, gets, byName, search, count, replays };
  };

  beforeAll(async () => {
    dir = await tempDir('e2e-migrate');
    pg = await freshPostgresUrl();
    receiver = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
        if (!accepting) {
          refused.add(headers['webhook-id'] ?? '');
          refusals += 1;
          return void res.writeHead(503).end();
        }
        delivered.set(headers['webhook-id'] ?? '', { body: Buffer.concat(chunks).toString('utf8'), headers });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;

    const source = `sqlite:${dir.path}/source.db`;
    tokens.write = await createToken(source, 'writer');
    tokens.read = await createToken(source, 'reader', ['plants:read']);
    tokens.expiring = await createToken(source, 'expiring', ['plants:read'], ['--expires-in', '30d']);
    tokens.revoked = await createToken(source, 'revoked', ['plants:read']);
    const revoke = await runNode(paths.tokensCli, ['revoke', 'revoked'], { DATABASE_URL: source });
    expect(revoke.code).toBe(0);
    const added = await runNode(paths.webhooksCli, ['add', '--url', hookUrl], { DATABASE_URL: source, ...WEBHOOKS });
    expect(added.code).toBe(0);
    secret = added.stdout.trim();

    const server = await startServer({ DATABASE_URL: source, ...WEBHOOKS });
    try {
      const names = ['Fern', 'Maidenhair fern', 'Ivy', 'Rose', 'Ficus', 'Äpfel', 'zebra grass', 'ZZ plant', 'Aloe'];
      for (const [i, name] of names.entries()) {
        const created = await call(
          server,
          tokens.write,
          'POST',
          '/plants',
          i % 2 === 0 ? { name, tag: 'shade' } : { name },
        );
        expect(created.status).toBe(201);
      }
      for (let i = 0; i < 4; i += 1) {
        const body = { name: `Keyed fern ${i}`, ...(i % 2 === 0 ? { tag: 'shade' } : {}) };
        const key = `migrate-key-${i}`;
        keyed.push({ key, body });
        expect((await call(server, tokens.write, 'POST', '/plants', body, { 'idempotency-key': key })).status).toBe(
          201,
        );
      }
      expect((await call(server, tokens.write, 'POST', '/plants', { id: 900, name: 'Chosen id' })).status).toBe(201);
      const etag = (await call(server, tokens.read, 'GET', '/plants/2')).etag ?? '';
      const patched = await call(
        server,
        tokens.write,
        'PATCH',
        '/plants/2',
        { name: 'Boston fern', tag: 'shade' },
        {
          'content-type': 'application/merge-patch+json',
          'if-match': etag,
        },
      );
      expect(patched.status).toBe(200);
      expect(
        (
          await call(
            server,
            tokens.write,
            'PATCH',
            '/plants/3',
            { tag: null },
            { 'content-type': 'application/merge-patch+json' },
          )
        ).status,
      ).toBe(200);
      expect((await call(server, tokens.write, 'DELETE', '/plants/4')).status).toBe(204);
      // The largest id, deleted: no server on a copy may hand it out again.
      expect((await call(server, tokens.write, 'POST', '/plants', { id: 5000, name: 'Gone soon' })).status).toBe(201);
      expect((await call(server, tokens.write, 'DELETE', '/plants/5000')).status).toBe(204);
      highest = 5000;
      before = await look(server);
      // Every event fails at first (the receiver answers 503): the deliveries are pending, with
      // attempts, when the store is moved (a plant's later events wait for its first: some are
      // never tried). The server's stop waits for the attempts in flight.
      await until('as many refusals as events', () => refusals >= SOURCE_EVENTS, 30_000, {
        detail: () => `${refusals} refusals of ${refused.size} events`,
      });
    } finally {
      await server.stop();
    }
  }, 120_000);

  afterAll(async () => {
    receiver?.closeAllConnections();
    await new Promise<void>((resolve) => receiver?.close(() => resolve()));
    await pg?.drop();
    await dir?.remove();
  });

  const expectSameAnswers = async (databaseUrl: string) => {
    accepting = false;
    const server = await startServer({ DATABASE_URL: databaseUrl, ...WEBHOOKS });
    try {
      const after = await look(server);
      expect(after.plants).toEqual(before.plants);
      expect(after.gets.map((g) => [g.status, g.etag, g.body])).toEqual(
        before.gets.map((g) => [g.status, g.etag, g.body]),
      );
      expect(after.byName).toBe(before.byName);
      expect([after.search.body, after.search.total]).toEqual([before.search.body, before.search.total]);
      expect(JSON.parse(before.search.body)).toHaveLength(6);
      expect(after.count.total).toBe(before.count.total);
      for (const [i, replay] of after.replays.entries()) {
        expect(replay.replayed).toBe('true');
        expect([replay.status, replay.location, replay.etag]).toEqual([
          before.replays[i]?.status,
          before.replays[i]?.location,
          before.replays[i]?.etag,
        ]);
      }
      // An ETag taken before the move still names the plant's version.
      const first = before.gets[0];
      const notModified = await call(server, tokens.read, 'GET', `/plants/${before.plants[0]?.id}`, undefined, {
        'if-none-match': first?.etag ?? '',
      });
      expect(notModified.status).toBe(304);
      expect((await call(server, tokens.expiring, 'GET', '/plants?limit=1')).status).toBe(200);
      expect((await call(server, tokens.revoked, 'GET', '/plants?limit=1')).status).toBe(401);
      expect((await call(server, tokens.read, 'POST', '/plants', { name: 'Not allowed' })).status).toBe(403);
      const fresh = await call(server, tokens.write, 'POST', '/plants', { name: 'After the move' });
      expect(fresh.status).toBe(201);
      expect(Number(fresh.location?.split('/').pop())).toBeGreaterThan(highest);
      highest = Number(fresh.location?.split('/').pop());
      expect((await call(server, tokens.write, 'DELETE', `/plants/${highest}`)).status).toBe(204);
    } finally {
      await server.stop();
    }
  };

  it('moves the store to PostgreSQL: a server there answers as the first did', async () => {
    const moved = await data(['migrate', '--from', `sqlite:${dir.path}/source.db`, '--to', pg.url]);
    expect(moved.stderr).toBe('');
    expect(moved.code).toBe(0);
    // One delivery an event, and every refusal the receiver answered recorded as an attempt.
    expect(moved.stdout).toContain(
      `plants 13, tokens 4, idempotency_keys 4, webhook_endpoints 1, webhook_deliveries ${SOURCE_EVENTS}, webhook_attempts ${refusals}`,
    );
    expect(refusals).toBeGreaterThanOrEqual(SOURCE_EVENTS);
    expect(moved.stdout).toContain('counts and checksums match');
    await expectSameAnswers(pg.url);
  }, 120_000);

  it('refuses to fill a store that holds anything (exit 2), and leaves it as it was', async () => {
    const again = await data(['migrate', '--from', `sqlite:${dir.path}/source.db`, '--to', pg.url]);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/not empty/);
  });

  it('moves it back to a new SQLite file, deliveries still pending, then delivers them with the same secret', async () => {
    const back = `sqlite:${dir.path}/back.db`;
    const moved = await data(['migrate', '--from', pg.url, '--to', back]);
    expect(moved.code).toBe(0);
    expect(moved.stdout).toContain('counts and checksums match');
    await expectSameAnswers(back);
    const tokensBefore = await runNode(paths.tokensCli, ['list', '--json'], {
      DATABASE_URL: `sqlite:${dir.path}/source.db`,
    });
    const tokensAfter = await runNode(paths.tokensCli, ['list', '--json'], { DATABASE_URL: back });
    expect(JSON.parse(tokensAfter.stdout)).toEqual(JSON.parse(tokensBefore.stdout));

    accepting = true;
    const server = await startServer({ DATABASE_URL: back, ...WEBHOOKS });
    try {
      // 15 creates, 2 updates and 2 deletes before the move; the servers on the copies added 2 and 2.
      // Until the store has nothing left to send, not until the last event arrives: an event more would
      // then be seen.
      const pending = async () => {
        const listed = await runNode(paths.webhooksCli, ['deliveries', '--json', '--status', 'pending'], {
          DATABASE_URL: back,
          ...WEBHOOKS,
        });
        expect(listed.code, listed.stderr).toBe(0);
        return (JSON.parse(listed.stdout) as unknown[]).length;
      };
      await until(
        'every event delivered and nothing pending',
        async () => delivered.size >= EVENTS && (await pending()) === 0,
        20_000,
        { everyMs: 100, detail: () => `${delivered.size} of ${EVENTS} delivered` },
      );
      expect(await pending()).toBe(0);
      expect(delivered.size).toBe(EVENTS);
      const wh = new Webhook(secret);
      for (const { body, headers } of delivered.values()) expect(() => wh.verify(body, headers)).not.toThrow();
    } finally {
      await server.stop();
    }
  }, 120_000);
});
