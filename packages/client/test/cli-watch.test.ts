import { changeBody } from '@plant-store/domain';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createPlantStoreClient, type PlantStoreClient } from '../src/index.js';
import { runCliAgainst, type CliRun } from './cli-run.js';
import { eventually, feedRequests, reply, startFakeServer, TOKEN, type FakeServer } from './fake-server.js';

let server: FakeServer;
let client: PlantStoreClient;

/** `plant-store watch <argv>` running until the test aborts it; `lines()` is what it printed so far. */
const watch = (argv: readonly string[], env: Record<string, string | undefined> = {}) => {
  const controller = new AbortController();
  let stdout = '';
  let stderr = '';
  const done = runCliAgainst(server, ['watch', ...argv], {
    stdout: { write: (chunk: string) => (stdout += chunk) },
    stderr: { write: (chunk: string) => (stderr += chunk) },
    signal: controller.signal,
    env,
  });
  return {
    lines: () => stdout.split('\n').slice(0, -1),
    stop: async (): Promise<CliRun> => {
      controller.abort();
      const { code } = await done;
      return { code, stdout, stderr };
    },
    done: async (): Promise<CliRun> => ({ code: (await done).code, stdout, stderr }),
  };
};

const streamOpen = () => eventually('the change stream to open', () => server.openStreams() === 1);

beforeEach(async () => {
  server = await startFakeServer();
  client = createPlantStoreClient({ baseUrl: server.url, token: TOKEN });
});

afterEach(async () => {
  await server.close();
});

describe('plant-store watch', () => {
  it('prints one line per change from now on, until Ctrl-C (exit 130, nothing on stderr)', async () => {
    await client.plants.create({ name: 'Before' });
    const run = watch([]);
    await streamOpen();
    const monstera = await client.plants.create({ name: 'Monstera', tag: 'tropical' });
    await client.plants.update(monstera.id, { name: 'Monstera "Thai" deliciosa', tag: null });
    await client.plants.update(monstera.id, { tag: 'tropical plants' });
    await client.plants.delete(monstera.id);
    await eventually('four lines', () => run.lines().length === 4);
    expect(await run.stop()).toEqual({
      code: 130,
      stdout: [
        `2 plant.created ${monstera.id} "Monstera" tropical`,
        `3 plant.updated ${monstera.id} "Monstera \\"Thai\\" deliciosa"`,
        `4 plant.updated ${monstera.id} "Monstera \\"Thai\\" deliciosa" tropical plants`,
        `5 plant.deleted ${monstera.id}`,
        '',
      ].join('\n'),
      stderr: '',
    });
    expect(feedRequests(server).map((r) => r.url)).toEqual(['/plants/changes?limit=1', '/plants/changes?since=1']);
  });

  it('--json prints each change as the server sent it, one per line; --since starts after that number', async () => {
    await client.plants.create({ name: 'Fern', tag: 'shade' });
    await client.plants.update(1, { name: 'Boston fern' });
    await client.plants.delete(1);
    const run = watch(['--since', '1', '--json']);
    await eventually('two lines', () => run.lines().length === 2);
    const { code, stdout } = await run.stop();
    expect(code).toBe(130);
    expect(stdout).toBe(`${changeBody(server.changes[1]!)}\n${changeBody(server.changes[2]!)}\n`);
  });

  it('--tag prints the changes of plants with that tag, plant.left for one that leaves', async () => {
    const run = watch(['--since', '0', '--tag', 'tropical']);
    await streamOpen();
    const palm = await client.plants.create({ name: 'Palm', tag: 'tropical' });
    await client.plants.create({ name: 'Cactus', tag: 'desert' });
    await client.plants.update(palm.id, { tag: 'shade' });
    await eventually('two lines', () => run.lines().length === 2);
    expect(await run.stop()).toEqual({
      code: 130,
      stdout: `1 plant.created ${palm.id} "Palm" tropical\n3 plant.left ${palm.id}\n`,
      stderr: '',
    });
    expect(feedRequests(server).map((r) => r.url)).toEqual(['/plants/changes?tag=tropical&since=0']);
  });

  it('goes on after a lost connection without printing a change twice', async () => {
    const run = watch(['--since', '0']);
    await streamOpen();
    await client.plants.create({ name: 'One' });
    await eventually('one line', () => run.lines().length === 1);
    server.cutStreams();
    await client.plants.create({ name: 'Two' });
    await eventually('two lines', () => run.lines().length === 2);
    expect(run.lines()).toEqual(['1 plant.created 1 "One"', '2 plant.created 2 "Two"']);
    expect((await run.stop()).code).toBe(130);
  });

  it('exits 1 with what to do when the changes have expired (410)', async () => {
    for (const name of ['One', 'Two', 'Three']) await client.plants.create({ name });
    const run = watch(['--since', '2']);
    await eventually('one line', () => run.lines().length === 1);
    server.feed.expiredBefore = 4;
    server.cutStreams();
    const { code, stdout, stderr } = await run.done();
    expect(code).toBe(1);
    expect(stdout).toBe('3 plant.created 3 "Three"\n');
    expect(stderr).toMatch(
      /^plant-store: the changes after 3 have expired: the server no longer keeps them \(CHANGES_RETENTION\), so watch cannot go on without missing some; read the plants again \("plant-store export" or "plant-store list --all"\), then run "plant-store watch" without --since \(HTTP 410, request id [0-9a-f-]{36}\)\n$/,
    );
  });

  it('exits 1 with the server message for a 401 or a since above the newest number', async () => {
    expect(await watch(['--since', '0'], { PLANT_STORE_TOKEN: 'revoked' }).done()).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/^plant-store: unknown, expired or revoked token \(HTTP 401, request id /),
    });
    server.enqueue(reply(400, 'since: 9 is above the newest change number, 0'));
    expect(await watch(['--since', '9']).done()).toMatchObject({
      code: 1,
      stdout: '',
      stderr: expect.stringMatching(/^plant-store: since: 9 is above the newest change number, 0 \(HTTP 400/),
    });
  });

  it('exits 2 for a bad --since or an argument, without a request', async () => {
    for (const argv of [['--since=-1'], ['--since', '01'], ['--since', 'x'], ['extra']]) {
      const run = await watch(argv).done();
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/^plant-store: (--since: expected decimal digits|watch takes no arguments)/);
      expect(run.stderr).toMatch(/Run "plant-store watch --help" for usage\.\n$/);
    }
    expect(await watch(['--limit', '5']).done()).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/^plant-store: watch does not take --limit/),
    });
    expect(await watch(['--tag', '']).done()).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/^plant-store: tag: /),
    });
    expect(server.requests).toEqual([]);
  });

  it('has help of its own, and the top help lists it', async () => {
    const help = await runCliAgainst(server, ['watch', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: plant-store watch \[--since N\] \[--tag T\] \[--json\]/);
    expect(help.stdout).toContain('42 plant.created 7 "Monstera" tropical');
    expect(help.stdout).toContain('45 plant.left 7');
    const top = await runCliAgainst(server, ['--help']);
    expect(top.stdout).toMatch(
      /\n {2}watch \[--since N\] \[--tag T\] \[--json\] +print each change as it happens, until Ctrl-C\n/,
    );
  });
});
