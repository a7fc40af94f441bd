import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { createPlantStoreClient } from '@plant-store/client';
import { until } from '@plant-store/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paths } from './support/paths.js';
import { runNode, startServer, tempDir, type ServerProcess } from './support/processes.js';
import { createToken } from './support/token.js';

/*
 * `plant-store watch` as a process against the real server: what it prints while the API is
 * used, its exit on Ctrl-C and when its reader goes away, and its reconnection across a server
 * restart (behind a TCP proxy, so the address stays while the server process changes).
 */

let dir: { path: string; remove(): Promise<void> };
let databaseUrl: string;
let token: string;
let server: ServerProcess;
let proxy: Server;
let proxyUrl: string;
const sockets = new Set<Socket>();

const plants = () => createPlantStoreClient({ baseUrl: proxyUrl, token, retry: { limit: 0 } }).plants;

/** `plant-store watch <args>` through the proxy; `lines()` is what it printed so far. */
const watch = (args: readonly string[]) => {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [paths.clientCli, 'watch', ...args], {
    env: { ...process.env, PLANT_STORE_URL: proxyUrl, PLANT_STORE_TOKEN: token },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const closed = once(child, 'close') as Promise<[number | null]>;
  return {
    child,
    lines: () => stdout.split('\n').slice(0, -1),
    stderr: () => stderr,
    exit: async () => (await closed)[0],
  };
};

/** How many answers of GET /plants/changes the server has logged (a stream's, once it opened). */
const feedAnswers = (): number =>
  server
    .output()
    .split('\n')
    .filter((line) => line.includes('"route":"/plants/changes"')).length;

beforeAll(async () => {
  dir = await tempDir('watch');
  databaseUrl = `sqlite:${dir.path}/plant-store.db`;
  token = await createToken(databaseUrl, 'watch', ['plants:read', 'plants:write']);
  server = await startServer({ DATABASE_URL: databaseUrl });
  proxy = createServer((socket) => {
    sockets.add(socket);
    const upstream = connect(server.port, '127.0.0.1');
    socket.pipe(upstream).pipe(socket);
    const close = () => {
      socket.destroy();
      upstream.destroy();
      sockets.delete(socket);
    };
    socket.on('error', close).on('close', close);
    upstream.on('error', close).on('close', close);
  });
  proxy.listen(0, '127.0.0.1');
  await once(proxy, 'listening');
  proxyUrl = `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  proxy?.close();
  await server?.stop();
  await dir?.remove();
});

describe('plant-store watch against the real server', () => {
  it('prints each change made through the API, and exits 130 on Ctrl-C with nothing on stderr', async () => {
    const answered = feedAnswers();
    const run = watch([]);
    // It prints what is committed after it asked for the newest change number, then opened its
    // stream from there: wait for both answers before writing.
    await until('the answers to watch', () => feedAnswers() === answered + 2, 20_000);
    const monstera = await plants().create({ name: 'Monstera', tag: 'tropical' });
    await plants().update(monstera.id, { name: 'Monstera deliciosa' });
    await plants().update(monstera.id, { name: 'Monstera deliciosa' }); // no change
    await plants().delete(monstera.id);
    await until('three lines', () => run.lines().length === 3, 20_000);
    run.child.kill('SIGINT');
    expect(await run.exit()).toBe(130);
    expect(run.lines()).toEqual([
      expect.stringMatching(new RegExp(`^\\d+ plant\\.created ${monstera.id} "Monstera" tropical$`)),
      expect.stringMatching(new RegExp(`^\\d+ plant\\.updated ${monstera.id} "Monstera deliciosa" tropical$`)),
      expect.stringMatching(new RegExp(`^\\d+ plant\\.deleted ${monstera.id}$`)),
    ]);
    const seqs = run.lines().map((line) => Number(line.split(' ')[0]));
    expect(seqs).toEqual([seqs[0], (seqs[0] ?? 0) + 1, (seqs[0] ?? 0) + 2]);
    expect(run.stderr()).toBe('');
  });

  it('--tag prints only the changes of plants with that tag, plant.left for one that leaves', async () => {
    const since = (await plants().list({ limit: 1 })).changeSeq ?? 0;
    const palm = await plants().create({ name: 'Palm', tag: 'watched tag' });
    await plants().create({ name: 'Cactus', tag: 'desert' });
    await plants().update(palm.id, { tag: 'desert' });
    await plants().update(palm.id, { name: 'Palm tree' }); // not of the tag any more
    const run = watch(['--since', String(since), '--tag', 'watched tag']);
    await until('two lines', () => run.lines().length === 2, 20_000);
    run.child.kill('SIGINT');
    expect(await run.exit()).toBe(130);
    expect(run.lines()).toEqual([
      `${since + 1} plant.created ${palm.id} "Palm" watched tag`,
      `${since + 3} plant.left ${palm.id}`,
    ]);
    expect(run.stderr()).toBe('');
  });

  it('ends quietly with exit 0 at the next change once its reader has gone (| head)', async () => {
    const run = watch(['--since', '0', '--json']);
    await until('the first line', () => run.lines().length >= 1, 20_000);
    run.child.stdout.destroy();
    await plants().create({ name: 'Written to a closed pipe' });
    expect(await run.exit()).toBe(0);
    expect(run.stderr()).toBe('');
  });

  it('reconnects across a server restart and prints every change once', async () => {
    const first = await plants().create({ name: 'Before the restart' });
    const run = watch(['--since', '0']);
    await until('every change so far', () => run.lines().at(-1)?.includes(`"Before the restart"`) === true, 20_000);
    const printed = run.lines().length;
    await server.stop(); // a shutdown ends the stream cleanly
    server = await startServer({ DATABASE_URL: databaseUrl });
    const second = await plants().create({ name: 'After the restart' });
    await until('the change after the restart', () => run.lines().length === printed + 1, 30_000);
    run.child.kill('SIGINT');
    expect(await run.exit()).toBe(130);
    expect(run.lines().at(-1)).toMatch(new RegExp(`^\\d+ plant\\.created ${second.id} "After the restart"$`));
    expect(run.lines().filter((line) => line.includes(` ${first.id} `))).toHaveLength(1);
    const seqs = run.lines().map((line) => Number(line.split(' ')[0]));
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    expect(run.stderr()).toBe('');
  });
});

describe('plant-store watch when the changes have expired', () => {
  let expiring: ServerProcess;
  let expiringDir: { path: string; remove(): Promise<void> };
  let expiringToken: string;
  beforeAll(async () => {
    expiringDir = await tempDir('watch-expired');
    const url = `sqlite:${expiringDir.path}/plant-store.db`;
    expiringToken = await createToken(url, 'watch', ['plants:read', 'plants:write']);
    expiring = await startServer({ DATABASE_URL: url, CHANGES_RETENTION: '1s' });
  });
  afterAll(async () => {
    await expiring?.stop();
    await expiringDir?.remove();
  });

  it('exits 1 saying so, and what to do', async () => {
    await createPlantStoreClient({ baseUrl: expiring.url, token: expiringToken }).plants.create({ name: 'Old' });
    // Ages the change past CHANGES_RETENTION (1 s, judged by its timestamp): the subject of the test.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const result = await runNode(paths.clientCli, ['watch', '--since', '0'], {
      PLANT_STORE_URL: expiring.url,
      PLANT_STORE_TOKEN: expiringToken,
    });
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: expect.stringMatching(
        /^plant-store: the changes after 0 have expired: the server no longer keeps them \(CHANGES_RETENTION\), so watch cannot go on without missing some; read the plants again \("plant-store export" or "plant-store list --all"\), then run "plant-store watch" without --since \(HTTP 410, request id [0-9a-f-]{36}\)\n$/,
      ),
    });
  });
});
