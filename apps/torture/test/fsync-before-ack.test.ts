import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { describeUnlessMissing, until } from '@plant-store/testkit';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startServer, tempDir, type ServerProcess } from './support/processes.js';
import { parseStrace, type Call } from './support/strace.js';
import { createToken } from './support/token.js';

/**
 * No durable create is acknowledged before its own sync returned (SQLite, synchronous=FULL, the
 * default), seen from outside: strace follows every thread of the running server and records,
 * with timestamps, each write to the WAL file, each fdatasync/fsync of it, and each answer
 * written to a client socket. Creates go one at a time (a lone write) and from 16 connections at
 * once (group commit); every one is synced on libuv's thread pool, never on the event loop.
 *
 * For every 201 the check is exact, so that no other sync can cover a create by chance:
 * - its transaction is found in the WAL: the first frame holding the plant's (unique) name, then
 *   the first commit frame from there on (a frame header whose "database size" field is set);
 * - its sync is the FIRST sync that began after that commit frame was written, on the one
 *   descriptor the server syncs commits with — the WAL opened read-only by the store
 *   (docs/explanation/storage.md: it syncs the WAL itself, off the event loop), not SQLite's own
 *   descriptors (the writer syncs the WAL header when the WAL starts over, the checkpointer
 *   syncs the WAL on its own every 100 ms);
 * - that sync must have returned before the 201 was written.
 * A sync that started before the commit, on another descriptor, or after an earlier sync that
 * the answer did not wait for, does not count.
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

/** The descriptors of `file` that `pid` holds, and whether each is open read-only (/proc, Linux). */
const descriptorsOf = (pid: number, file: string): { fd: number; readOnly: boolean }[] =>
  readdirSync(`/proc/${pid}/fd`).flatMap((fd) => {
    try {
      if (readlinkSync(`/proc/${pid}/fd/${fd}`) !== file) return [];
      const flags = /^flags:\s+([0-7]+)$/m.exec(readFileSync(`/proc/${pid}/fdinfo/${fd}`, 'utf8'))?.[1];
      return [{ fd: Number(fd), readOnly: (Number.parseInt(flags ?? '2', 8) & 3) === 0 }];
    } catch {
      return []; // closed meanwhile
    }
  });

/** A WAL frame header (24 bytes) of a commit: its "database size after commit" field is set. */
const isCommitHeader = (write: Call): boolean => write.data.length === 24 && write.data.readUInt32BE(4) !== 0;

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
  let wal: string;

  beforeAll(async () => {
    dir = await tempDir('fsync');
    const file = join(dir.path, 'plants.db');
    const databaseUrl = `sqlite:${file}`;
    token = await createToken(databaseUrl, 'fsync-check');
    server = await startServer({
      DATABASE_URL: databaseUrl,
      LOG_LEVEL: 'warn',
      SQLITE_SYNCHRONOUS: 'FULL',
    });
    wal = `${realpathSync(file)}-wal`;
  });
  afterAll(async () => {
    await server?.stop();
    await dir?.remove();
  });

  it('answers each create only after the first sync of the WAL that followed its commit, one at a time and 16 at once', async () => {
    const commitSync = descriptorsOf(server.pid, wal).filter((d) => d.readOnly);
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
        '-xx',
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
    const threads = Number(readFileSync(`/proc/${server.pid}/status`, 'utf8').match(/^Threads:\s+(\d+)/m)?.[1] ?? 1);
    await until(
      'strace attached to every thread',
      () => (tracerSays.match(/attached/g) ?? []).length >= threads,
      10_000,
      {
        everyMs: 50,
        detail: () => tracerSays,
      },
    ).catch(() => undefined);
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
    const walWrites = calls.filter((c) => c.name.startsWith('pwrite') && c.target === wal);
    const syncs = calls.filter(
      (c) =>
        (c.name === 'fdatasync' || c.name === 'fsync') &&
        c.result === '0' &&
        commitSync.some((d) => d.fd === c.fd) &&
        c.target === wal,
    );
    const answers = calls.filter(
      (c) => c.target.startsWith('TCP') && c.data.subarray(0, 12).toString() === 'HTTP/1.1 201',
    );

    const problems: string[] = [];
    if (commitSync.length !== 1) {
      problems.push(
        `the server holds ${commitSync.length} read-only descriptors of the WAL (${descriptorsOf(server.pid, wal)
          .map((d) => `${d.fd}${d.readOnly ? ' read-only' : ''}`)
          .join(', ')}); expected the one it syncs commits with`,
      );
    }
    let onLoop = 0;
    let onPool = 0;
    const checked = new Set<number>();
    for (const answer of answers) {
      const id = Number(/location: \/plants\/(\d+)/i.exec(answer.data.toString('latin1'))?.[1]);
      if (!Number.isSafeInteger(id)) {
        problems.push(`a 201 without a Location: ${answer.data.toString('latin1').slice(0, 120)}`);
        continue;
      }
      checked.add(id);
      const named = walWrites.findIndex((w) => w.data.includes(nameOf(id)));
      if (named === -1 || (walWrites[named] as Call).start > answer.start) {
        problems.push(`plant ${id}: answered 201 before any write of it to the WAL`);
        continue;
      }
      // From the header of the frame holding the name (written just before it) to the commit's header.
      const from = named > 0 && (walWrites[named - 1] as Call).data.length === 24 ? named - 1 : named;
      const commitAt = walWrites.findIndex((w, i) => i >= from && isCommitHeader(w));
      const committed = walWrites[commitAt + 1]; // the commit frame's page, the transaction's last write
      if (commitAt === -1 || committed === undefined || committed.start > answer.start) {
        problems.push(`plant ${id}: answered 201 before its commit frame was written to the WAL`);
        continue;
      }
      const sync = syncs.find((s) => s.start >= committed.end);
      if (sync === undefined || sync.end > answer.start) {
        problems.push(
          `plant ${id}: committed to the WAL at ${committed.end.toFixed(6)}, answered at ${answer.start.toFixed(6)}, ` +
            (sync === undefined
              ? 'no sync of the commit descriptor after it'
              : `before the first sync after it returned (${sync.start.toFixed(6)}–${sync.end.toFixed(6)})`),
        );
        continue;
      }
      if (sync.tid === server.pid) onLoop += 1;
      else onPool += 1;
    }
    console.log(
      `fsync-before-ack: ${checked.size} creates answered 201 checked (${SEQUENTIAL} one at a time, ${CONNECTIONS * PER_CONNECTION} from ${CONNECTIONS} connections); ` +
        `${walWrites.length} WAL writes, ${syncs.length} syncs of the commit descriptor seen; ${problems.length} problems; ` +
        `each create's own sync ran on the event loop for ${onLoop}, on the thread pool for ${onPool}`,
    );
    expect(problems.slice(0, 20), `${problems.length} problems`).toEqual([]);
    expect(checked.size).toBe(SEQUENTIAL + CONNECTIONS * PER_CONNECTION);
    // Every sync ran off the event loop, the lone creates' too (docs/explanation/storage.md).
    expect(onLoop).toBe(0);
    expect(onPool).toBe(checked.size);
  });
});
