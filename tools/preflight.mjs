#!/usr/bin/env node
// Before any suite runs (`pnpm test`, `pnpm test:lines`, `.ci/run`): do the services the tests
// need answer? The PostgreSQL server at PG_TEST_URL (default postgres://postgres@127.0.0.1:5432/test)
// and Redis at REDIS_TEST_URL (default redis://127.0.0.1:6379), the same defaults as
// @plant-store/testkit and the server's Redis tests. This is one message up front instead of one
// failed test at a time.
//
// Under CI=true a missing service fails the run here (exit 1), since every suite that needs it
// would fail. Otherwise it is a warning (exit 0): outside CI those suites skip themselves with a
// line each. Plain JavaScript, nothing imported but node:*, so it runs on any Node.
import { connect } from 'node:net';

const TIMEOUT_MS = 3_000;
const ci = process.env.CI === 'true';

/** Host and port of a URL (the first host of a multi-host one), or a Unix socket path. */
const whereOf = (url, defaultPort) => {
  const parsed = new URL(url);
  const socketDir = parsed.searchParams.get('host');
  const port = Number(parsed.port === '' ? defaultPort : parsed.port);
  if (socketDir !== null && socketDir.startsWith('/')) return { path: `${socketDir}/.s.PGSQL.${port}` };
  return { host: parsed.hostname.split(',')[0].replace(/^\[|\]$/g, '') || '127.0.0.1', port };
};

/**
 * Connects, sends `hello`, and reads until `verdict(bytes so far)` says something other than
 * undefined (the problem, or null for none), then says `bye` (if any) and hangs up; rejects with
 * why there was no such answer.
 */
const ask = (where, hello, verdict, bye) =>
  new Promise((resolve, reject) => {
    const socket = connect(where);
    let received = Buffer.alloc(0);
    let settled = false;
    const settle = (error, value) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error === undefined && bye !== undefined) socket.end(bye);
      else socket.destroy();
      if (error === undefined) resolve(value);
      else reject(error);
    };
    const timer = setTimeout(() => settle(new Error(`no answer within ${TIMEOUT_MS / 1000} s`)), TIMEOUT_MS);
    socket.once('connect', () => socket.write(hello));
    socket.on('data', (data) => {
      received = Buffer.concat([received, data]);
      const said = verdict(received);
      if (said !== undefined) settle(undefined, said);
    });
    socket.once('error', (error) => settle(error));
    socket.once('close', () => settle(new Error('closed without an answer')));
  });

const reason = (error) =>
  error.code === 'ECONNREFUSED' ? 'connection refused (nothing listens there)' : error.message;

/**
 * A PostgreSQL startup message for the URL's user and database, read up to the server's verdict:
 * ready for queries, a password asked for (PG_TEST_URL holds it), or an error saying why not.
 */
const checkPostgres = async (url) => {
  const parsed = new URL(url);
  const user = decodeURIComponent(parsed.username || 'postgres');
  const database = decodeURIComponent(parsed.pathname.slice(1)) || user;
  const params = Buffer.from(`user\0${user}\0database\0${database}\0\0`);
  const hello = Buffer.alloc(8 + params.length);
  hello.writeInt32BE(hello.length, 0);
  hello.writeInt32BE(196608, 4); // protocol 3.0
  params.copy(hello, 8);
  return ask(
    whereOf(url, 5432),
    hello,
    (bytes) => {
      // Messages: a type byte, then a length that counts itself.
      for (let at = 0; at + 5 <= bytes.length;) {
        const type = String.fromCharCode(bytes[at]);
        const end = at + 1 + bytes.readInt32BE(at + 1);
        if (end > bytes.length) return undefined; // the rest is still on its way
        if (type === 'Z') return null;
        if (type === 'R' && bytes.readInt32BE(at + 5) !== 0) return null;
        if (type === 'E') {
          const message = /M([^\0]*)\0/.exec(bytes.subarray(at + 5, end).toString('utf8'))?.[1];
          return `it answers, but refuses the tests: ${message ?? 'an error'}`;
        }
        if (!'RSKN'.includes(type)) return 'something answers there, but not PostgreSQL';
        at = end;
      }
      return undefined;
    },
    Buffer.from([0x58, 0, 0, 0, 4]),
  ); // Terminate
};

const checkRedis = (url) =>
  ask(whereOf(url, 6379), 'PING\r\n', (bytes) => {
    const answer = bytes.toString('latin1');
    if (!answer.includes('\r\n')) return undefined;
    // +PONG; -NOAUTH: a password is needed, which REDIS_TEST_URL holds.
    if (answer.startsWith('+PONG') || answer.startsWith('-NOAUTH')) return null;
    return `something answers there, but not Redis (${JSON.stringify(answer.slice(0, 40))})`;
  });

const redact = (url) => url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');

const services = [
  {
    name: 'PostgreSQL',
    url: process.env.PG_TEST_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
    variable: 'PG_TEST_URL',
    check: checkPostgres,
    start: [
      'Start one with trust authentication and a database `test`, e.g.',
      '  docker run -d --name plant-store-postgres -p 127.0.0.1:5432:5432 \\',
      '    -e POSTGRES_HOST_AUTH_METHOD=trust -e POSTGRES_DB=test postgres:15',
      'or Debian/Ubuntu: apt-get install postgresql, trust for 127.0.0.1 in pg_hba.conf,',
      '  then: createdb -U postgres test',
    ],
  },
  {
    name: 'Redis',
    url: process.env.REDIS_TEST_URL ?? 'redis://127.0.0.1:6379',
    variable: 'REDIS_TEST_URL',
    check: checkRedis,
    start: [
      'Start one, e.g.',
      '  docker run -d --name plant-store-redis -p 127.0.0.1:6379:6379 redis:7',
      'or Debian/Ubuntu: apt-get install redis-server',
    ],
  },
];

const problems = [];
const unread = [];
for (const service of services) {
  try {
    new URL(service.url);
  } catch {
    unread.push(`preflight: ${service.variable} is not a URL this check can read; ${service.name} not checked`);
    continue;
  }
  let problem;
  try {
    problem = await service.check(service.url);
  } catch (error) {
    problem = reason(error);
  }
  if (problem !== null) {
    problems.push(
      [
        `- ${service.name} at ${redact(service.url)}: ${problem}.`,
        ...service.start.map((line) => `  ${line}`),
        `  or set ${service.variable} to one that runs.`,
      ].join('\n'),
    );
  }
}
for (const line of unread) process.stderr.write(`${line}\n`);

if (problems.length === 0) {
  if (unread.length === 0) {
    process.stderr.write(`preflight: ${services.map((s) => `${s.name} at ${redact(s.url)}`).join(', ')} answer\n`);
  }
} else if (ci) {
  process.stderr.write(
    `preflight: the tests need services that do not answer; with CI=true every suite that needs them\n` +
      `would fail, so nothing runs:\n${problems.join('\n')}\n`,
  );
  process.exit(1);
} else {
  process.stderr.write(
    `preflight: warning: services the tests need do not answer; their suites will skip themselves\n` +
      `(with CI=true they fail, and this check stops the run first):\n${problems.join('\n')}\n`,
  );
}
