import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCliAgainst, type CliRun as Run } from './cli-run.js';
import { answerLost, startFakeServer, type FakeServer } from './fake-server.js';

// `plant-store put` against a fake server that answers like the real one (fake-server.ts).

let server: FakeServer;

const run = (argv: readonly string[]): Promise<Run> => runCliAgainst(server, argv);

beforeEach(async () => {
  server = await startFakeServer();
});

afterEach(async () => {
  await server.close();
});

describe('plant-store put', () => {
  it('creates a plant with the given id and prints it with its ETag', async () => {
    const result = await run(['put', '7', '--name', 'Fern', '--tag', 'shade']);
    expect(result).toEqual({
      code: 0,
      stdout: `Created plant 7: Fern [shade] (ETag ${server.etagOf(7)})\n`,
      stderr: '',
    });
    expect(server.requests[0]).toMatchObject({
      method: 'PUT',
      url: '/plants/7',
      body: '{"name":"Fern","tag":"shade"}',
    });
  });

  it('replaces a plant whole (a tag left out is removed), and prints JSON with etag and created', async () => {
    server.plants.set(3, { id: 3, name: 'Basil', tag: 'herb' } as never);
    const result = await run(['put', '3', '--name', 'Thai basil', '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ id: 3, name: 'Thai basil', etag: server.etagOf(3), created: false });
    expect(server.plants.get(3)).toEqual({ id: 3, name: 'Thai basil' });
  });

  it('replaces only the plant with --if-match ETAG, and says so in one line when it changed or is gone', async () => {
    server.plants.set(3, { id: 3, name: 'Basil' } as never);
    const etag = server.etagOf(3) as string;
    expect((await run(['put', '3', '--name', 'Ocimum', '--if-match', etag])).stdout).toMatch(/^Replaced plant 3: /);
    expect(server.requests[0]?.headers['if-match']).toBe(etag);
    const stale = await run(['put', '3', '--name', 'Again', '--if-match', etag]);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toMatch(
      new RegExp(
        `^plant-store: plant 3 does not have the ETag ${etag} \\(it has changed, or does not exist\\), so nothing was replaced; run "plant-store get 3" to see it now \\(HTTP 412, request id [0-9a-f-]{36}\\)\n$`,
      ),
    );
    const missing = await run(['put', '4', '--name', 'Nobody', '--if-match', '*']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^plant-store: plant 4 does not have the ETag \*/);
    expect(server.plants.has(4)).toBe(false);
  });

  it('only creates with --if-none-match: exit 1 and nothing changed when the plant exists', async () => {
    expect((await run(['put', '5', '--name', 'First', '--if-none-match'])).code).toBe(0);
    expect(server.requests[0]?.headers['if-none-match']).toBe('*');
    const again = await run(['put', '5', '--name', 'Second', '--if-none-match']);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(
      /^plant-store: plant 5 exists already and --if-none-match only creates, so nothing was changed; run "plant-store get 5" to see it now \(HTTP 412, /,
    );
    expect(server.plants.get(5)).toEqual({ id: 5, name: 'First' });
  });

  it('is retried after a lost answer: the retry finds the plant it made and prints Replaced', async () => {
    server.enqueue(answerLost);
    const result = await run(['put', '7', '--name', 'Fern']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Replaced plant 7: Fern \(ETag /);
    expect(server.requests).toHaveLength(2);
  });

  it.each([
    [['put', '3'], /put needs --name/],
    [['put', '--name', 'x'], /put takes exactly one plant id/],
    [['put', '03', '--name', 'x'], /^plant-store: id: /],
    [['put', '3', '--name', ''], /^plant-store: name: expected 1–200 characters/],
    [['put', '3', '--name', 'x', '--no-tag'], /put does not take --no-tag/],
    [
      ['put', '3', '--name', 'x', '--if-match', '"a"', '--if-none-match'],
      /put takes --if-match or --if-none-match, not both/,
    ],
    [['put', '3', '--name', 'x', '--if-match', '1k3'], /the shell removed them/],
  ])('exits 2 for %j without a request', async (argv: string[], message: RegExp) => {
    const result = await run(argv);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(server.requests).toHaveLength(0);
  });

  it('has its own help, and is listed in the top help', async () => {
    const help = await run(['put', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(
      /^Usage: plant-store put <id> --name NAME \[--tag TAG\] \[--if-match ETAG \| --if-none-match\]/,
    );
    expect((await run(['--help'])).stdout).toMatch(
      /\n {2}put <id> --name N \[--tag T\] \[--if-match ETAG \| --if-none-match\]\n/,
    );
  });
});
