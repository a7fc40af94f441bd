import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { describeUnlessMissing } from '@plant-store/testkit';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startServer, tempDir, type ServerProcess } from './support/processes.js';
import { createToken } from './support/token.js';

/**
 * No durable create is acknowledged before its own fsync returned (SQLite, synchronous=FULL, the
 * default), seen from outside: strace follows every thread of the running server and records,
 * with timestamps, each write to the WAL file, each fdatasync/fsync of it, and each answer
 * written to a client socket. For every 201 the first WAL write holding that plant's (unique)
 * name must be followed by a sync of the WAL that began after that write ended and returned
 * before the 201 was written. Creates go one at a time (a lone write, synced on the event loop)
 * and from 16 connections at once (group commit, synced on libuv's thread pool).
 *
 * A build that answers before the sync fails here: checked by making WalSync.committedNow resolve
 * at once in dist/: 357 of the 500 creates then had no sync between their write and their 201 (the
 * rest were covered by a background sync by chance), and the test failed naming them.
 */

const SEQUENTIAL = 100;
const CONNECTIONS = 16;
const PER_CONNECTION = 25;

const strace = spawnSync('strace', ['-V'], { encoding: 'utf8' });
const missing =
  strace.status === 0
    ? process.getuid?.() === 0
      ? undefined
      : 'strace -p needs root (ptrace of another process)'
    : 'strace is not installed (apt-get install strace)';

/** One system call as strace showed it: its thread, when it began and ended (seconds), its text. */
interface Call {
  readonly tid: number;
  readonly name: string;
  readonly start: number;
  readonly end: number;
  readonly text: string;
  readonly result: string;
}

const LINE = /^(\d+) +(\d+\.\d+) (.*)$/;
const DURATION = / <(\d+\.\d+)>$/;

/** Joins strace's `<unfinished ...>` and `<... resumed>` halves; times from `-ttt` and `-T`. */
const parseStrace = (output: string): Call[] => {
  const calls: Call[] = [];
  const open = new Map<number, { name: string; start: number; text: string }>();
  for (const line of output.split('\n')) {
    const m = LINE.exec(line);
    if (m === null) continue;
    const tid = Number(m[1]);
    const at = Number(m[2]);
    const rest = m[3] ?? '';
    const unfinished = /^([a-z0-9_]+)\((.*) <unfinished \.\.\.>$/.exec(rest);
    if (unfinished !== null) {
      open.set(tid, { name: unfinished[1] ?? '', start: at, text: unfinished[2] ?? '' });
      continue;
    }
    const resumed = /^<\.\.\. ([a-z0-9_]+) resumed>(.*)$/.exec(rest);
    const duration = Number(DURATION.exec(rest)?.[1] ?? 0);
    if (resumed !== null) {
      const begun = open.get(tid);
      open.delete(tid);
      if (begun === undefined) continue;
      const tail = resumed[2] ?? '';
      calls.push({
        tid,
        name: begun.name,
        start: begun.start,
        end: begun.start + duration,
        text: begun.text + tail,
        result: /\) += (-?\d+)/.exec(tail)?.[1] ?? '?',
      });
      continue;
    }
    const whole = /^([a-z0-9_]+)\((.*)$/.exec(rest);
    if (whole === null) continue;
    calls.push({
      tid,
      name: whole[1] ?? '',
      start: at,
      end: at + duration,
      text: whole[2] ?? '',
      result: /\) += (-?\d+)/.exec(rest)?.[1] ?? '?',
    });
  }
  return calls;
};

const nameOf = (id: number): string => `fsync-check-${id}-`;

const create = (agent: http.Agent, port: number, token: string, id: number): Promise<number> =>
  new Promise((resolve, reject) => {
    const body = JSON.stringify({ id, name: nameOf(id) });
    const request = http.request(
      {
        host: '127.0.0.1',
        port,
        path: '/plants',
        method: 'POST',
        agent,
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    request.on('error', reject);
    request.end(body);
  });

describeUnlessMissing('strace', missing, 'durable creates: fsync before the answer (SQLite FULL)', () => {
  let dir: { path: string; remove(): Promise<void> };
  let server: ServerProcess;
  let token: string;

  beforeAll(async () => {
    dir = await tempDir('fsync');
    const databaseUrl = `sqlite:${join(dir.path, 'plants.db')}`;
    token = await createToken(databaseUrl, 'fsync-check');
    server = await startServer({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn', SQLITE_SYNCHRONOUS: 'FULL' });
  });
  afterAll(async () => {
    await server?.stop();
    await dir?.remove();
  });

  it('writes no 201 before a sync of the WAL that began after the plant was written, one at a time and 16 at once', async () => {
    const traceFile = join(dir.path, 'strace.txt');
    const tracer = spawn(
      'strace',
      [
        '-f',
        '-p',
        String(server.pid),
        '-ttt',
        '-T',
        '-yy',
        '-s',
        '8192',
        '-e',
        'trace=write,writev,pwrite64,pwritev,pwritev2,fdatasync,fsync',
        '-e',
        'signal=none',
        '-o',
        traceFile,
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let tracerSays = '';
    tracer.stderr.setEncoding('utf8').on('data', (chunk: string) => (tracerSays += chunk));
    const tracerExited = new Promise<void>((resolve) => tracer.once('exit', () => resolve()));
    // Every thread attached: strace says so once per thread it attached to.
    const threads = readFileSync(`/proc/${server.pid}/status`, 'utf8').match(/^Threads:\s+(\d+)/m)?.[1];
    const deadline = Date.now() + 10_000;
    while ((tracerSays.match(/attached/g) ?? []).length < Number(threads ?? 1) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(tracerSays, 'strace attached to every thread of the server').toMatch(/attached/);

    const statuses: number[] = [];
    const one = new http.Agent({ keepAlive: true, maxSockets: 1 });
    for (let id = 1; id <= SEQUENTIAL; id++) statuses.push(await create(one, server.port, token, id));
    one.destroy();
    const many = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async (_, c) => {
        for (let k = 0; k < PER_CONNECTION; k++) {
          const id = SEQUENTIAL + 1 + c * PER_CONNECTION + k;
          statuses.push(await create(many, server.port, token, id));
        }
      }),
    );
    many.destroy();
    tracer.kill('SIGINT');
    await tracerExited;
    expect(statuses.filter((s) => s !== 201)).toEqual([]);

    const calls = parseStrace(readFileSync(traceFile, 'utf8'));
    const onWal = (c: Call) => /^\d+<[^>]*-wal>/.test(c.text);
    const walWrites = calls.filter((c) => c.name.startsWith('pwrite') && onWal(c));
    const syncs = calls.filter((c) => (c.name === 'fdatasync' || c.name === 'fsync') && onWal(c) && c.result === '0');
    const answers = calls.filter((c) => /^\d+<TCP[^>]*>/.test(c.text) && c.text.includes('HTTP/1.1 201'));

    const problems: string[] = [];
    let onLoop = 0;
    let onPool = 0;
    const checked = new Set<number>();
    for (const answer of answers) {
      const id = Number(/location: \/plants\/(\d+)/i.exec(answer.text)?.[1]);
      if (!Number.isSafeInteger(id)) {
        problems.push(`a 201 without a Location: ${answer.text.slice(0, 120)}`);
        continue;
      }
      checked.add(id);
      const written = walWrites.find((w) => w.text.includes(nameOf(id)));
      if (written === undefined || written.start > answer.start) {
        problems.push(`plant ${id}: answered 201 before any write of it to the WAL`);
        continue;
      }
      const sync = syncs.find((s) => s.start >= written.end && s.end <= answer.start);
      if (sync === undefined) {
        problems.push(
          `plant ${id}: written to the WAL at ${written.end.toFixed(6)}, answered at ${answer.start.toFixed(6)}, no sync of the WAL between`,
        );
        continue;
      }
      if (sync.tid === server.pid) onLoop += 1;
      else onPool += 1;
    }
    console.log(
      `fsync-before-ack: ${checked.size} creates answered 201 checked (${SEQUENTIAL} one at a time, ${CONNECTIONS * PER_CONNECTION} from ${CONNECTIONS} connections); ${walWrites.length} WAL writes, ${syncs.length} WAL syncs seen; the covering sync ran on the event loop for ${onLoop}, on the thread pool for ${onPool}`,
    );
    expect(problems.slice(0, 20), `${problems.length} problems`).toEqual([]);
    expect(checked.size).toBe(SEQUENTIAL + CONNECTIONS * PER_CONNECTION);
    // Both ways of syncing were exercised.
    expect(onLoop).toBeGreaterThan(0);
    expect(onPool).toBeGreaterThan(0);
  });
});
