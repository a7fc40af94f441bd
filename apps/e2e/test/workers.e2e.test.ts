import { createPlantStoreClient, NotFoundError } from '@plant-store/client';
import { describePostgres, freshPostgresUrl, type FreshPostgres, until } from '@plant-store/testkit';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paths } from './support/paths.js';
import { runNode, startServer, tempDir, type ServerProcess } from './support/processes.js';
import { createToken } from './support/token.js';

type LogLine = Record<string, unknown>;

/** The JSON log lines a process wrote so far (the first-run banner and other text are skipped). */
const logLines = (server: ServerProcess): LogLine[] =>
  server
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as LogLine];
      } catch {
        return [];
      }
    });

/** Polls the log until `predicate` holds (bounded; the machine may be slow). */
const waitForLog = async (
  server: ServerProcess,
  predicate: (lines: LogLine[]) => boolean,
  what: string,
): Promise<LogLine[]> =>
  until(
    what,
    () => {
      const lines = logLines(server);
      return predicate(lines) && lines;
    },
    30_000,
    { everyMs: 50, detail: () => `\n${server.output()}` },
  );

const isPrimaryStopped = (line: LogLine): boolean => line['role'] === 'primary' && line['msg'] === 'stopped';

const listeningPids = (lines: LogLine[]): number[] =>
  lines.filter((l) => l['msg'] === 'listening').map((l) => l['pid'] as number);

/** GET /healthz on a new connection each time (no keep-alive: cluster hands each connection to a worker). */
const healthzOnNewConnection = (url: string, requestId: string): Promise<number> =>
  new Promise((resolve, reject) => {
    const req = request(`${url}/healthz`, { agent: false, headers: { 'x-request-id': requestId } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });

describePostgres('WORKERS=2: two processes on one port over PostgreSQL', () => {
  let database: FreshPostgres;
  let server: ServerProcess;
  let token: string;

  beforeAll(async () => {
    database = await freshPostgresUrl();
    token = await createToken(database.url, 'workers');
    server = await startServer({ DATABASE_URL: database.url, WORKERS: '2' });
    await waitForLog(server, (lines) => listeningPids(lines).length === 2, 'both workers to listen');
  });

  afterAll(async () => {
    await server?.stop('SIGKILL');
    await database?.drop();
  });

  const plants = () => createPlantStoreClient({ baseUrl: server.url, token, retry: { limit: 0 } }).plants;

  it('logs each role: one primary (the process started) that serves nothing, two workers with their own pids', () => {
    const lines = logLines(server);
    const primaryPid = server.child.pid;
    expect(lines.find((l) => l['msg'] === 'starting workers')).toMatchObject({
      role: 'primary',
      pid: primaryPid,
      workers: 2,
    });
    const listening = lines.filter((l) => l['msg'] === 'listening');
    expect(listening).toHaveLength(2);
    for (const line of listening) expect(line).toMatchObject({ role: 'worker', store: 'postgres' });
    const pids = new Set(listeningPids(lines));
    expect(pids.size).toBe(2);
    expect(pids.has(primaryPid as number)).toBe(false);
  });

  it('creates, reads and deletes through the one port', async () => {
    const created = await plants().create({ name: 'Clustered', tag: 'workers' });
    expect(await plants().get(created.id)).toEqual(created);
    await plants().delete(created.id);
    await expect(plants().get(created.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('answers from both workers (each new connection goes to the next worker)', async () => {
    const ids = Array.from({ length: 12 }, (_, i) => `workers-e2e-${Date.now()}-${i}`);
    for (const id of ids) expect(await healthzOnNewConnection(server.url, id)).toBe(200);
    const lines = await waitForLog(
      server,
      (all) => ids.every((id) => all.some((l) => l['reqId'] === id)),
      'the request log lines',
    );
    const servedBy = new Set(lines.filter((l) => ids.includes(l['reqId'] as string)).map((l) => l['pid']));
    expect(servedBy.size).toBe(2);
    expect([...servedBy].sort()).toEqual([...new Set(listeningPids(lines))].sort());
  });

  it('restarts a worker that dies, and keeps serving', async () => {
    const [victim] = listeningPids(logLines(server));
    process.kill(victim as number, 'SIGKILL');
    const lines = await waitForLog(server, (all) => listeningPids(all).length === 3, 'a replacement worker');
    expect(lines.find((l) => l['msg'] === 'worker died unexpectedly; restarting it')).toMatchObject({
      role: 'primary',
      workerPid: victim,
      signal: 'SIGKILL',
    });
    const created = await plants().create({ name: 'After the restart' });
    expect(await plants().get(created.id)).toEqual(created);
  });

  it('SIGTERM: the primary asks every worker to drain over IPC, all stop, exit code 0', async () => {
    const code = await server.stop('SIGTERM');
    expect(code).toBe(0);
    // 'exit' may come before the last output is read from the pipes
    const lines = await waitForLog(server, (all) => all.some(isPrimaryStopped), "the primary's last line");
    const workerPids = new Set(listeningPids(lines));
    const drained = lines.filter((l) => l['msg'] === 'shutting down' && l['role'] === 'worker');
    // the two live workers (the killed one is gone), each asked over IPC
    expect(drained).toHaveLength(2);
    for (const line of drained) {
      expect(line['reason']).toBe('ipc');
      expect(workerPids.has(line['pid'] as number)).toBe(true);
    }
    expect(lines.filter((l) => l['msg'] === 'stopped' && l['role'] === 'worker')).toEqual([
      expect.objectContaining({ outcome: 'drained' }),
      expect.objectContaining({ outcome: 'drained' }),
    ]);
    expect(lines.at(-1)).toMatchObject({ role: 'primary', msg: 'stopped', outcome: 'drained', pid: server.child.pid });
  });
});

describePostgres('WORKERS=2: Ctrl-C signals every process of the group at once', () => {
  let database: FreshPostgres;
  let server: ServerProcess;

  beforeAll(async () => {
    database = await freshPostgresUrl();
    server = await startServer({
      DATABASE_URL: database.url,
      WORKERS: '2',
      PLANT_STORE_STATIC_TOKEN: 'pst_workers_ctrl_c_0123456789',
    });
    await waitForLog(server, (lines) => listeningPids(lines).length === 2, 'both workers to listen');
  });

  afterAll(async () => {
    await server?.stop('SIGKILL');
    await database?.drop();
  });

  it("each worker drains once (its own SIGINT and the primary's IPC request are one request), exit code 0", async () => {
    const workers = listeningPids(logLines(server));
    const exited = new Promise<number | null>((resolve) => server.child.once('exit', (code) => resolve(code)));
    // What a terminal does on Ctrl-C: SIGINT to the primary and to every worker.
    server.child.kill('SIGINT');
    for (const pid of workers) process.kill(pid, 'SIGINT');
    expect(await exited).toBe(0);
    const lines = await waitForLog(server, (all) => all.some(isPrimaryStopped), "the primary's last line");
    expect(
      lines.filter((l) => typeof l['msg'] === 'string' && (l['msg'] as string).startsWith('second signal')),
    ).toEqual([]);
    expect(lines.filter((l) => l['msg'] === 'shutting down' && l['role'] === 'worker')).toHaveLength(2);
    expect(
      lines.filter((l) => l['msg'] === 'stopped' && l['role'] === 'worker' && l['outcome'] === 'drained'),
    ).toHaveLength(2);
    expect(lines.at(-1)).toMatchObject({ role: 'primary', msg: 'stopped', outcome: 'drained' });
  });
});

describe('WORKERS=2 with SQLite', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  beforeAll(async () => {
    dir = await tempDir('workers-sqlite');
  });
  afterAll(() => dir?.remove());

  it('stops start-up with exit code 1 and one line saying why', async () => {
    const result = await runNode(paths.serverMain, [], {
      DATABASE_URL: `sqlite:${dir.path}/plant-store.db`,
      WORKERS: '2',
      HOST: '127.0.0.1',
      PORT: '0',
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      'plant-store: invalid configuration: WORKERS > 1 needs a postgres:// DATABASE_URL: a SQLite file has one writer at a time, and one process with group commit already keeps it busy\n',
    );
  });
});
