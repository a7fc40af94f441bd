import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCliAgainst } from './cli-run.js';
import { raw, startFakeServer, type FakeServer } from './fake-server.js';

let server: FakeServer;

const run = (argv: readonly string[]) => runCliAgainst(server, argv);

const lines = (stdout: string): string[] => stdout.split('\n').filter((line) => line !== '');

beforeEach(async () => {
  server = await startFakeServer();
  const plants = [
    { id: 1, name: 'Boston Fern', tag: 'shade' },
    { id: 2, name: 'Monstera' },
    { id: 3, name: 'FERNLEAF' },
    { id: 4, name: 'Staff', tag: 'shade' },
    { id: 5, name: 'asparagus fern', tag: 'shade' },
  ];
  for (const plant of plants) server.plants.set(plant.id, plant as never);
});

afterEach(async () => {
  await server.close();
});

describe('plant-store list --q --sort --count', () => {
  it('searches, sorts by name descending with --sort -name, and prints the count on stderr', async () => {
    expect(await run(['list', '--q', 'FERN', '--sort', '-name', '--count'])).toEqual({
      code: 0,
      stdout: 'ID\tNAME\tTAG\n3\tFERNLEAF\t\n1\tBoston Fern\tshade\n5\tasparagus fern\tshade\n',
      stderr: 'total: 3\n',
    });
    expect(server.requests[0]?.url).toBe('/plants?sort=-name&q=FERN');
    expect(server.requests[0]?.headers['prefer']).toBe('count=exact');
  });

  it('sends no Prefer and prints no total without --count', async () => {
    const result = await run(['list', '--q', 'fern']);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(server.requests[0]?.headers['prefer']).toBeUndefined();
  });

  it('puts total into the --json object', async () => {
    const result = await run(['list', '--q', 'fern', '--limit', '2', '--count', '--json']);
    expect(JSON.parse(result.stdout)).toEqual({
      plants: [
        { id: 1, name: 'Boston Fern', tag: 'shade' },
        { id: 3, name: 'FERNLEAF' },
      ],
      next: { limit: 2, after: 3, q: 'fern' },
      total: 3,
    });
  });

  it('prints the next command with the cursor of a name order, and that command prints the next page', async () => {
    const first = await run(['list', '--sort', 'name', '--tag', 'shade', '--limit', '2']);
    expect(lines(first.stdout)).toEqual(['ID\tNAME\tTAG', '5\tasparagus fern\tshade', '1\tBoston Fern\tshade']);
    const more = /^more: plant-store list (.*)\n$/.exec(first.stderr)?.[1];
    expect(more).toMatch(/^--limit 2 --sort name --cursor [A-Za-z0-9_-]+ --tag shade$/);
    const second = await run(['list', ...(more as string).split(' ')]);
    expect(lines(second.stdout)).toEqual(['ID\tNAME\tTAG', '4\tStaff\tshade']);
    expect(second.stderr).toBe('');
  });

  it('prints the next command of -id with after, and -name with --sort -name', async () => {
    expect((await run(['list', '--sort', '-id', '--limit', '2'])).stderr).toBe(
      'more: plant-store list --limit 2 --sort -id --after 4\n',
    );
    expect((await run(['list', '--sort=-name', '--limit', '1', '--q=-'])).stdout).toBe('ID\tNAME\tTAG\n');
    expect(server.requests.at(-1)?.url).toBe('/plants?limit=1&sort=-name&q=-');
  });

  it('spells a q or tag that starts with a dash as --q=… in the next command', async () => {
    for (const id of [6, 7]) server.plants.set(id, { id, name: `-leaf ${id}`, tag: '-x' } as never);
    expect((await run(['list', '--q=-leaf', '--tag=-x', '--limit', '1'])).stderr).toBe(
      'more: plant-store list --limit 1 --after 6 --q=-leaf --tag=-x\n',
    );
  });

  it('follows every name-ordered page with --all', async () => {
    const result = await run(['list', '--all', '--sort', '-name', '--limit', '2', '--json']);
    expect((JSON.parse(result.stdout) as { name: string }[]).map((p) => p.name)).toEqual([
      'Staff',
      'Monstera',
      'FERNLEAF',
      'Boston Fern',
      'asparagus fern',
    ]);
    expect(server.requests).toHaveLength(3);
  });

  it('exits 1 when the server did not apply the count', async () => {
    server.enqueue(raw(200, '[]'));
    const result = await run(['list', '--count']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/did not apply Prefer: count=exact/);
  });

  it.each([
    [['list', '--sort', 'size'], /^plant-store: --sort: expected one of id, -id, name, -name/],
    [['list', '--q', ''], /^plant-store: q: expected 1–100 characters, got 0/],
    [['list', '--cursor', 'a/b', '--sort', 'name'], /^plant-store: --cursor: expected the cursor/],
    [['list', '--cursor', 'abc'], /^plant-store: cursor: not with sort=id/],
    [['list', '--sort', 'name', '--after', '3'], /^plant-store: after: not with sort=name/],
    [['list', '--all', '--cursor', 'abc'], /drop --cursor/],
    [['list', '--all', '--count'], /--count goes with one page/],
    [['list', '--sort'], /argument missing/],
  ])('exits 2 for %j without a request', async (argv, message) => {
    const result = await run(argv);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(server.requests).toHaveLength(0);
  });

  it('documents the options in list --help', async () => {
    const help = (await run(['list', '--help'])).stdout;
    for (const option of ['--q TEXT', '--sort ORDER', '--count', '--cursor C']) expect(help).toContain(option);
  });
});
