import { freshPostgresUrl, openAdminSql, postgresAvailable, skipOrFail } from '@plant-store/testkit';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type ServerProcess } from './support/processes.js';
import { throwawayCluster, type OutagePostgres } from './support/throwaway-postgres.js';
import { createToken } from './support/token.js';

/**
 * DATABASE_URL's sslmode and sslrootcert (CONTRACT part 5, "TLS"), against a throwaway
 * PostgreSQL that serves TLS with a certificate for 127.0.0.1 and db.plant-store.test signed by a
 * CA the test made: what connects, what is encrypted, and what stops start-up with the reason.
 */

const DB_NAME = 'db.plant-store.test';

/** The server on `url` with every kind of connection it makes: its pool, the migrations' direct one, the rate limiter's. */
const startEveryConnection = (url: string): Promise<ServerProcess> =>
  startServer({
    DATABASE_URL: url,
    DATABASE_DIRECT_URL: url,
    RATE_LIMIT_STORE: 'postgres',
    RATE_LIMIT_PER_SECOND: '1000',
    LOG_LEVEL: 'warn',
  });
const createFern = (server: ServerProcess, headers: Record<string, string>): Promise<Response> =>
  fetch(`${server.url}/plants`, { method: 'POST', headers, body: '{"name":"Fern"}' });

describe('PostgreSQL over TLS: sslmode and sslrootcert', () => {
  let pg: OutagePostgres | undefined;
  let skipped: string | undefined;
  const started: ServerProcess[] = [];
  let token: string | undefined;

  beforeAll(async () => {
    const found = await throwawayCluster(undefined, { dnsNames: [DB_NAME] });
    if (typeof found === 'string') skipped = found;
    else pg = found;
  });

  afterAll(async () => {
    for (const server of started) await server.stop('SIGKILL');
    await pg?.close();
  });

  /** The cluster's URL with `host` in place of 127.0.0.1 and `query` added. */
  const urlFor = (db: OutagePostgres, query: string, host = '127.0.0.1') =>
    `${db.url.replace('127.0.0.1', host)}?${query}`;
  const rootCert = (db: OutagePostgres) => `sslrootcert=${encodeURIComponent(db.certificates?.caFile ?? '')}`;

  /**
   * Every connection the server opened since `from` (an offset in the server's log), from
   * PostgreSQL's own `connection authorized` lines (log_connections): its application_name and
   * whether it was encrypted. The log, not pg_stat_ssl, so that connections gone by the time of
   * a look count too (the direct one runs the migrations and closes).
   */
  const connections = async (db: OutagePostgres, from: number) => {
    const log = ((await db.serverLog?.()) ?? '').slice(from);
    const seen = [...log.matchAll(/connection authorized: .*application_name=(plant-store[\w-]*)(.*)$/gm)].map(
      ([, name, rest]) => ({ name: name as string, tls: /SSL enabled \(protocol=([^,]+)/.exec(rest ?? '')?.[1] }),
    );
    const names = [...new Set(seen.map((c) => c.name))].sort();
    return {
      names,
      encrypted: seen.filter((c) => c.tls !== undefined).length,
      plain: seen.filter((c) => c.tls === undefined).map((c) => c.name),
      version: seen.find((c) => c.tls !== undefined)?.tls,
    };
  };

  /** Starts a server on `url`, makes and reads a plant through it, and stops it. */
  const serves = async (db: OutagePostgres, url: string) => {
    token ??= await createToken(db.url, 'tls');
    const from = ((await db.serverLog?.()) ?? '').length;
    const server = await startEveryConnection(url);
    started.push(server);
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const created = await createFern(server, headers);
    expect(created.status).toBe(201);
    const location = created.headers.get('location') ?? '';
    expect((await fetch(`${server.url}${location}`, { headers })).status).toBe(200);
    await server.stop('SIGTERM');
    return connections(db, from);
  };

  const serving: readonly (readonly [string, (db: OutagePostgres) => string])[] = [
    ['verify-full with the CA, by address', (db: OutagePostgres) => urlFor(db, `sslmode=verify-full&${rootCert(db)}`)],
    [
      'verify-ca with the CA, by a name the certificate lacks',
      (db: OutagePostgres) => urlFor(db, `sslmode=verify-ca&${rootCert(db)}`, 'localhost'),
    ],
    ['require without a CA', (db: OutagePostgres) => urlFor(db, 'sslmode=require')],
    ['prefer', (db: OutagePostgres) => urlFor(db, 'sslmode=prefer')],
  ];
  for (const [label, url] of serving)
    it(`${label}: serves, every connection encrypted (pool, direct, fence, rate limiter)`, async (ctx) => {
      if (pg === undefined) return skipOrFail(ctx, 'postgres-tls', skipped ?? 'no harness');
      const seen = await serves(pg, url(pg));
      console.log(
        `postgres-tls ${label}: ${seen.encrypted} connections encrypted (${String(seen.version)}) of ${seen.names.join(', ')}; ${seen.plain.length} in the clear`,
      );
      expect(seen.plain).toEqual([]);
      expect(seen.names).toEqual(
        expect.arrayContaining(['plant-store', 'plant-store-direct', 'plant-store-fence', 'plant-store-rate-limiter']),
      );
    });

  const refused: readonly (readonly [string, (db: OutagePostgres) => string, RegExp])[] = [
    [
      'verify-full with the CA, by a name the certificate lacks',
      (db: OutagePostgres) => urlFor(db, `sslmode=verify-full&${rootCert(db)}`, 'localhost'),
      /not reachable: .*(Hostname\/IP does not match|altnames)/i,
    ],
    [
      'verify-full without the CA (the system has not heard of it)',
      (db: OutagePostgres) => urlFor(db, 'sslmode=verify-full'),
      /not reachable: .*(self[- ]signed|unable to (get|verify))/i,
    ],
    [
      'require with the CA, which checks the chain as verify-ca does, a CA that did not sign it',
      (db: OutagePostgres) =>
        urlFor(db, `sslmode=require&sslrootcert=${encodeURIComponent(db.certificates?.certFile ?? '')}`),
      /not reachable: .*(unable to (get|verify)|self[- ]signed)/i,
    ],
    [
      'an sslrootcert that is not there',
      (db: OutagePostgres) => urlFor(db, 'sslmode=verify-full&sslrootcert=/nonexistent/ca.pem'),
      /sslrootcert .*\/nonexistent\/ca\.pem.* cannot be read: ENOENT/,
    ],
    [
      'an sslmode libpq does not have',
      (db: OutagePostgres) => urlFor(db, 'sslmode=on'),
      /sslmode must be one of disable, prefer, require, verify-ca, verify-full/,
    ],
  ];
  for (const [label, url, reason] of refused)
    it(`${label}: start-up stops and says why`, async (ctx) => {
      if (pg === undefined) return skipOrFail(ctx, 'postgres-tls', skipped ?? 'no harness');
      await expect(startServer({ DATABASE_URL: url(pg), LOG_LEVEL: 'warn' }, { timeoutMs: 15_000 })).rejects.toThrow(
        reason,
      );
    });

  it('require against a PostgreSQL without TLS stops start-up; prefer uses it in the clear', async (ctx) => {
    if (!(await postgresAvailable())) return skipOrFail(ctx, 'postgres-tls', 'no PostgreSQL at PG_TEST_URL');
    const admin = openAdminSql();
    const [row] = await admin`show ssl`.finally(() => admin.end({ timeout: 5 }));
    if (row?.['ssl'] !== 'off') return skipOrFail(ctx, 'postgres-tls', 'the PostgreSQL at PG_TEST_URL has TLS on');
    const database = await freshPostgresUrl();
    try {
      await expect(
        startServer({ DATABASE_URL: `${database.url}&sslmode=require`, LOG_LEVEL: 'warn' }, { timeoutMs: 15_000 }),
      ).rejects.toThrow(/does not offer TLS \(sslmode=require\)/);
      const server = await startServer({ DATABASE_URL: `${database.url}&sslmode=prefer`, LOG_LEVEL: 'warn' });
      started.push(server);
      expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
      await server.stop('SIGTERM');
    } finally {
      await database.drop();
    }
  });
});

/**
 * DATABASE_URL's sslcert and sslkey: a throwaway PostgreSQL whose TLS connections must show a
 * client certificate its CA signed for their user (`hostssl … clientcert=verify-full`, as some
 * managed services require). The pool, DATABASE_DIRECT_URL's connection (the migrations) and the
 * rate limiter's pool must all present it, or start-up stops.
 */
describe('PostgreSQL over TLS with a client certificate: sslcert and sslkey', () => {
  let pg: OutagePostgres | undefined;
  let skipped: string | undefined;
  const started: ServerProcess[] = [];

  beforeAll(async () => {
    const found = await throwawayCluster(undefined, { dnsNames: [DB_NAME], clientCertificates: true });
    if (typeof found === 'string') skipped = found;
    else pg = found;
  });

  afterAll(async () => {
    for (const server of started) await server.stop('SIGKILL');
    await pg?.close();
  });

  const file = (path: string | undefined) => encodeURIComponent(path ?? '');
  const verified = (db: OutagePostgres) => `${db.url}?sslmode=verify-full&sslrootcert=${file(db.certificates?.caFile)}`;
  const withCertificate = (db: OutagePostgres) =>
    `${verified(db)}&sslcert=${file(db.certificates?.client?.certFile)}&sslkey=${file(db.certificates?.client?.keyFile)}`;

  it('serves: every connection, the rate limiter and the direct one included, shows the certificate', async (ctx) => {
    if (pg === undefined) return skipOrFail(ctx, 'postgres-tls', skipped ?? 'no harness');
    const token = await createToken(pg.url, 'client-cert');
    const url = withCertificate(pg);
    const server = await startEveryConnection(url);
    started.push(server);
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const created = await createFern(server, headers);
    expect(created.status).toBe(201);
    expect(created.headers.get('ratelimit-policy')).not.toBeNull();
    const admin = postgres(pg.url, { max: 1, onnotice: () => undefined });
    try {
      const rows = await admin`
        select a.application_name as name, s.ssl, s.client_dn from pg_stat_activity a join pg_stat_ssl s using (pid)
         where a.application_name like 'plant-store%'`;
      const seen = new Map(rows.map((row) => [String(row['name']), { ssl: row['ssl'], dn: row['client_dn'] }]));
      expect(seen.get('plant-store')).toEqual({ ssl: true, dn: '/CN=postgres' });
      expect(seen.get('plant-store-rate-limiter')).toEqual({ ssl: true, dn: '/CN=postgres' });
      for (const [, connection] of seen) expect(connection).toEqual({ ssl: true, dn: '/CN=postgres' });
    } finally {
      await admin.end({ timeout: 5 });
    }
    await server.stop('SIGTERM');
  });

  it.for([
    ['without sslcert and sslkey, the server refuses the connection', 'DATABASE_URL', /certificate/i],
    ['DATABASE_DIRECT_URL without them, the migrations cannot connect', 'DATABASE_DIRECT_URL', /certificate/i],
  ] as const)('%s: start-up stops and says why', async ([, bare, reason], ctx) => {
    if (pg === undefined) return skipOrFail(ctx, 'postgres-tls', skipped ?? 'no harness');
    const env = { DATABASE_URL: withCertificate(pg), DATABASE_DIRECT_URL: withCertificate(pg), [bare]: verified(pg) };
    await expect(startServer({ ...env, LOG_LEVEL: 'warn' }, { timeoutMs: 15_000 })).rejects.toThrow(reason);
  });
});
