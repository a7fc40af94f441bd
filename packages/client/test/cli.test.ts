import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCliAgainst, type CliRun as Run } from './cli-run.js';
import {
  answerLost,
  drop,
  eventually,
  hang,
  inProgress,
  raw,
  READ_ONLY_TOKEN,
  reply,
  startFakeServer,
  TOKEN,
  type FakeServer,
} from './fake-server.js';

let server: FakeServer;

const run = (
  argv: readonly string[],
  env: Record<string, string | undefined> = {},
  signal?: AbortSignal,
): Promise<Run> => runCliAgainst(server, argv, { env, ...(signal === undefined ? {} : { signal }) });

beforeEach(async () => {
  server = await startFakeServer();
});

afterEach(async () => {
  await server.close();
});

describe('plant-store create', () => {
  it('creates a plant and prints it', async () => {
    expect(await run(['create', '--name', 'Monstera', '--tag', 'indoor'])).toEqual({
      code: 0,
      stdout: 'Created plant 1: Monstera [indoor]\n',
      stderr: '',
    });
    expect(server.plants.get(1)).toEqual({ id: 1, name: 'Monstera', tag: 'indoor' });
  });

  it('prints one JSON document with --json and honours --id', async () => {
    const result = await run(['create', '--name', 'Fern', '--id', '42', '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ id: 42, name: 'Fern', replayed: false });
  });

  it('exits 1 with the server message on a conflict', async () => {
    await run(['create', '--name', 'Fern', '--id', '5']);
    const result = await run(['create', '--name', 'Fern', '--id', '5']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /^plant-store: a plant with id 5 already exists \(HTTP 409, request id [0-9a-f-]{36}\)\n$/,
    );
  });

  it('exits 2 for invalid input without sending a request', async () => {
    const noName = await run(['create']);
    expect(noName.code).toBe(2);
    expect(noName.stderr).toMatch(/create needs --name/);
    const badId = await run(['create', '--name', 'Fern', '--id', '007']);
    expect(badId.code).toBe(2);
    expect(badId.stderr).toMatch(/^plant-store: --id: expected decimal digits/);
    const longName = await run(['create', '--name', 'x'.repeat(201)]);
    expect(longName).toMatchObject({ code: 2, stderr: 'plant-store: name: expected 1–200 characters, got 201\n' });
    expect(server.requests).toHaveLength(0);
  });

  it('sends a fresh UUIDv7 Idempotency-Key, or the one given with --idempotency-key', async () => {
    await run(['create', '--name', 'Fern']);
    await run(['create', '--name', 'Ivy', '--idempotency-key', 'script-42']);
    const [random, given] = server.requests.map((r) => r.headers['idempotency-key']);
    expect(random).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(given).toBe('script-42');
  });

  it('marks a replay in text and in --json', async () => {
    const argv = ['create', '--name', 'Fern', '--tag', 'shade', '--idempotency-key', 'again'];
    expect((await run(argv)).stdout).toBe('Created plant 1: Fern [shade]\n');
    expect(await run(argv)).toEqual({
      code: 0,
      stdout: 'Created plant 1: Fern [shade] (replayed: an earlier request with this idempotency key created it)\n',
      stderr: '',
    });
    expect(JSON.parse((await run([...argv, '--json'])).stdout)).toEqual({
      id: 1,
      name: 'Fern',
      tag: 'shade',
      replayed: true,
    });
    expect(server.plants.size).toBe(1);
  });

  it('retries a create whose answer was lost and prints the replay', async () => {
    server.enqueue(answerLost);
    const result = await run(['create', '--name', 'Fern']);
    expect(result).toMatchObject({ code: 0, stdout: expect.stringMatching(/^Created plant 1: Fern \(replayed: /) });
    expect(server.requests).toHaveLength(2);
  });

  it('marks a replayed conflict and reports a reused key', async () => {
    server.plants.set(5, { id: 5, name: 'Ivy' } as never);
    await run(['create', '--name', 'Fern', '--id', '5', '--idempotency-key', 'k5']);
    const replayed = await run(['create', '--name', 'Fern', '--id', '5', '--idempotency-key', 'k5']);
    expect(replayed.code).toBe(1);
    expect(replayed.stderr).toMatch(/^plant-store: a plant with id 5 already exists \(HTTP 409, replayed, request id /);
    const reused = await run(['create', '--name', 'Other', '--idempotency-key', 'k5']);
    expect(reused.code).toBe(1);
    expect(reused.stderr).toMatch(
      /^plant-store: Idempotency-Key "k5" was already used with a different request \(HTTP 422, /,
    );
  });

  it('prints the key to repeat a create with when it failed without a final answer', async () => {
    server.enqueue(drop, drop, drop);
    const lost = await run(['create', '--name', 'Fern', '--idempotency-key', 'retry-me']);
    expect(lost.code).toBe(1);
    expect(lost.stderr).toMatch(/^plant-store: cannot reach the Plant Store: .*\n/);
    expect(lost.stderr).toMatch(
      /\nplant-store: to try again safely, repeat the create with --idempotency-key retry-me\n$/,
    );
    server.enqueue(inProgress('60'));
    const busy = await run(['create', '--name', 'Fern', '--idempotency-key', 'retry-me']);
    expect(busy.stderr).toMatch(/still in progress \(HTTP 409, .*\n.*--idempotency-key retry-me\n$/);
    await run(['create', '--name', 'Fern', '--id', '1']);
    const taken = await run(['create', '--name', 'Fern', '--id', '1']);
    expect(taken).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/already exists \(HTTP 409, request id [0-9a-f-]{36}\)\n$/),
    });
  });

  it('exits 2 for a malformed --idempotency-key without sending a request', async () => {
    const result = await run(['create', '--name', 'Fern', '--idempotency-key', 'has space']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^plant-store: --idempotency-key: expected 1–255 characters from A–Z a–z 0–9 \. _ : ~ \+ \/ = -, got /,
    );
    expect((await run(['get', '1', '--idempotency-key', 'k'])).stderr).toMatch(/get does not take --idempotency-key/);
    expect(server.requests).toHaveLength(0);
  });

  it('exits 1 with the server message when the token lacks the scope', async () => {
    const result = await run(['create', '--name', 'Fern', '--token', READ_ONLY_TOKEN]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/lacks the scope plants:write \(HTTP 403/);
  });
});

describe('plant-store get and delete', () => {
  beforeEach(() => {
    server.plants.set(3, { id: 3, name: 'Basil', tag: 'herb' } as never);
  });

  it('gets a plant as text, with its ETag, and as JSON', async () => {
    const etag = server.etagOf(3);
    expect(await run(['get', '3'])).toEqual({
      code: 0,
      stdout: `id    3\nname  Basil\ntag   herb\netag  ${etag}\n`,
      stderr: '',
    });
    expect(JSON.parse((await run(['get', '3', '--json'])).stdout)).toEqual({ id: 3, name: 'Basil', tag: 'herb' });
  });

  it('prints no etag line when the server sends none', async () => {
    server.enqueue(raw(200, '{"id":3,"name":"Basil"}'));
    expect((await run(['get', '3'])).stdout).toBe('id    3\nname  Basil\n');
  });

  it('deletes a plant, then reports it missing with exit 1', async () => {
    expect(await run(['delete', '3'])).toEqual({ code: 0, stdout: 'Deleted plant 3\n', stderr: '' });
    const again = await run(['delete', '3']);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^plant-store: no plant with id 3 \(HTTP 404/);
    expect(JSON.parse((await run(['create', '--name', 'x', '--json'])).stdout)).toMatchObject({ name: 'x' });
  });

  it('prints {deleted} with --json', async () => {
    expect(JSON.parse((await run(['--json', 'delete', '3'])).stdout)).toEqual({ deleted: 3 });
  });

  it('exits 2 for a missing, extra or malformed id', async () => {
    for (const argv of [['get'], ['get', '1', '2'], ['delete', 'abc'], ['get', '0'], ['get', '-1']]) {
      const result = await run(argv);
      expect(result.code, argv.join(' ')).toBe(2);
    }
    expect(server.requests).toHaveLength(0);
  });
});

describe('plant-store update', () => {
  beforeEach(() => {
    server.plants.set(3, { id: 3, name: 'Basil', tag: 'herb' } as never);
  });

  it('changes the name and prints the plant with its new ETag', async () => {
    const result = await run(['update', '3', '--name', 'Thai basil']);
    expect(result).toEqual({
      code: 0,
      stdout: `Updated plant 3: Thai basil [herb] (ETag ${server.etagOf(3)})\n`,
      stderr: '',
    });
    expect(server.requests[0]).toMatchObject({ method: 'PATCH', body: '{"name":"Thai basil"}' });
  });

  it('sets a tag with --tag, removes it with --no-tag, and prints JSON with the etag', async () => {
    expect((await run(['update', '3', '--tag', 'kitchen'])).stdout).toMatch(
      /^Updated plant 3: Basil \[kitchen\] \(ETag "/,
    );
    const removed = await run(['update', '3', '--no-tag', '--json']);
    expect(JSON.parse(removed.stdout)).toEqual({ id: 3, name: 'Basil', etag: server.etagOf(3) });
    expect(server.requests.map((r) => r.body)).toEqual(['{"tag":"kitchen"}', '{"tag":null}']);
  });

  it('updates with --if-match when the ETag is current', async () => {
    const etag = server.etagOf(3) as string;
    expect((await run(['update', '3', '--name', 'Ocimum', '--if-match', etag])).code).toBe(0);
    expect(server.requests[0]?.headers['if-match']).toBe(etag);
  });

  it('exits 1 with one clear line when the plant changed since --if-match was read', async () => {
    const stale = server.etagOf(3) as string;
    await run(['update', '3', '--tag', 'garden']);
    const result = await run(['update', '3', '--name', 'Ocimum', '--if-match', stale]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      new RegExp(
        `^plant-store: plant 3 has changed: its ETag is no longer ${stale}, so nothing was updated; run "plant-store get 3" to see it now \\(HTTP 412, request id [0-9a-f-]{36}\\)\n$`,
      ),
    );
    expect(server.plants.get(3)).toEqual({ id: 3, name: 'Basil', tag: 'garden' });
  });

  it('says when the 412 came to a retry whose lost first attempt may have made the change', async () => {
    server.enqueue(answerLost);
    const result = await run(['update', '3', '--name', 'Ocimum', '--if-match', server.etagOf(3) as string]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /nothing was updated \(this was a retry: the first attempt, whose answer was lost, may have made that change\); run/,
    );
    expect(result.stderr.split('\n')).toHaveLength(2);
  });

  it('exits 2 for a bare --if-match (the shell ate the quotes), saying how to quote it, without a request', async () => {
    const result = await run(['update', '3', '--name', 'x', '--if-match', '1k3']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^plant-store: --if-match: an ETag keeps its double quotes; the shell removed them: write --if-match '"1k3"'\n/,
    );
    expect((await run(['update', '3', '--name', 'x', '--if-match', 'two words'])).stderr).toMatch(
      /^plant-store: --if-match: expected an ETag/,
    );
    expect(server.requests).toHaveLength(0);
  });

  it.each([
    [['update', '3'], /update needs --name, --tag or --no-tag/],
    [['update', '3', '--tag', 'a', '--no-tag'], /update takes --tag or --no-tag, not both/],
    [['update', '--name', 'x'], /update takes exactly one plant id/],
    [['update', '03', '--name', 'x'], /^plant-store: id: /],
    [['update', '3', '--name', ''], /^plant-store: name: expected 1–200 characters/],
    [['update', '3', '--id', '4'], /update does not take --id/],
  ])('exits 2 for %j without a request', async (argv: string[], message: RegExp) => {
    const result = await run(argv);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(server.requests).toHaveLength(0);
  });

  it('exits 1 for an unknown plant', async () => {
    expect(await run(['update', '9', '--name', 'x'])).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/^plant-store: no plant with id 9 \(HTTP 404/),
    });
  });
});

describe('plant-store delete --if-match', () => {
  it('deletes when the ETag is current and exits 1 with one line when it is not', async () => {
    server.plants.set(3, { id: 3, name: 'Basil' } as never);
    const stale = await run(['delete', '3', '--if-match', '"old"']);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toMatch(
      /^plant-store: plant 3 has changed: its ETag is no longer "old", so nothing was deleted; run "plant-store get 3"/,
    );
    expect(server.plants.has(3)).toBe(true);
    expect(await run(['delete', '3', '--if-match', server.etagOf(3) as string])).toEqual({
      code: 0,
      stdout: 'Deleted plant 3\n',
      stderr: '',
    });
  });
});

describe('plant-store list', () => {
  beforeEach(() => {
    for (let id = 1; id <= 5; id++)
      server.plants.set(id, { id, name: `plant ${id}`, ...(id === 2 ? { tag: 'two' } : {}) } as never);
  });

  it('prints one page as tab-separated lines and the next command on stderr', async () => {
    expect(await run(['list', '--limit', '2'])).toEqual({
      code: 0,
      stdout: 'ID\tNAME\tTAG\n1\tplant 1\t\n2\tplant 2\ttwo\n',
      stderr: 'more: plant-store list --limit 2 --after 2\n',
    });
    expect((await run(['list', '--limit', '2', '--after', '4'])).stdout).toBe('ID\tNAME\tTAG\n5\tplant 5\t\n');
  });

  it('prints the page object with --json', async () => {
    expect(JSON.parse((await run(['list', '--limit', '4', '--json'])).stdout)).toMatchObject({
      next: { limit: 4, after: 4 },
    });
  });

  it('follows every page with --all, as text and as one JSON array', async () => {
    const text = await run(['list', '--all', '--limit', '2']);
    expect(text.stdout.split('\n').filter((l) => l !== '')).toHaveLength(6);
    const json = await run(['list', '--all', '--limit', '2', '--json']);
    expect((JSON.parse(json.stdout) as { id: number }[]).map((p) => p.id)).toEqual([1, 2, 3, 4, 5]);
    expect(server.requests.slice(3).map((r) => r.url)).toEqual([
      '/plants?limit=2',
      '/plants?limit=2&after=2',
      '/plants?limit=2&after=4',
    ]);
  });

  it('filters by --tag, one page or --all', async () => {
    server.plants.set(6, { id: 6, name: 'plant 6', tag: 'two' } as never);
    expect((await run(['list', '--tag', 'two'])).stdout).toBe('ID\tNAME\tTAG\n2\tplant 2\ttwo\n6\tplant 6\ttwo\n');
    const all = await run(['list', '--all', '--limit', '1', '--tag', 'two', '--json']);
    expect((JSON.parse(all.stdout) as { id: number }[]).map((p) => p.id)).toEqual([2, 6]);
    expect(server.requests.at(-1)?.url).toBe('/plants?limit=1&after=6&tag=two');
  });

  it('prints the next-page command with the tag quoted for the shell', async () => {
    for (const id of [7, 8]) server.plants.set(id, { id, name: `plant ${id}`, tag: "it's a & b" } as never);
    expect(await run(['list', '--limit', '1', '--tag', "it's a & b"])).toEqual({
      code: 0,
      stdout: "ID\tNAME\tTAG\n7\tplant 7\tit's a & b\n",
      stderr: "more: plant-store list --limit 1 --after 7 --tag 'it'\\''s a & b'\n",
    });
    expect((await run(['list', '--limit', '1', '--tag', 'two'])).stderr).toBe(
      'more: plant-store list --limit 1 --after 2 --tag two\n',
    );
  });

  it('exits 2 for an invalid --tag without a request', async () => {
    expect(await run(['list', '--tag', ''])).toMatchObject({
      code: 2,
      stderr: 'plant-store: tag: expected 1–100 characters, got 0\n',
    });
    expect(server.requests).toHaveLength(0);
  });

  it('exits 2 for a bad --limit', async () => {
    expect((await run(['list', '--limit', '0'])).code).toBe(2);
    expect((await run(['list', '--limit', 'ten'])).stderr).toMatch(/--limit: expected an integer from 1 to 1000/);
  });
});

describe('plant-store usage', () => {
  it('prints help at the top level and for every command', async () => {
    const top = await run(['--help']);
    expect(top.code).toBe(0);
    expect(top.stdout).toMatch(/^Usage: plant-store <command>/);
    for (const command of ['create', 'get', 'update', 'delete', 'list']) {
      const help = await run([command, '--help'], { PLANT_STORE_TOKEN: undefined });
      expect(help.code).toBe(0);
      expect(help.stdout).toMatch(new RegExp(`^Usage: plant-store ${command}`));
    }
    const create = (await run(['create', '--help'])).stdout;
    expect(create).toMatch(/--idempotency-key KEY/);
    expect(create).toMatch(/Every create sends an Idempotency-Key/);
    expect(create).not.toMatch(/never retried/);
    const update = (await run(['update', '--help'])).stdout;
    expect(update).toMatch(/--if-match ETAG/);
    expect(update).toMatch(/--no-tag/);
    expect((await run(['--help'])).stdout).toMatch(
      /update <id> \[--name N\] \[--tag T \| --no-tag\] \[--if-match ETAG\]/,
    );
  });

  it('prints the package version', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    expect(await run(['--version'])).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
  });

  it.each([
    [[], /^Usage: plant-store/],
    [['grow'], /unknown command "grow"/],
    [['get', '1', '--name', 'x'], /get does not take --name/],
    [['list', '--bogus'], /Unknown option '--bogus'/],
    [['list', '--limit'], /argument missing/],
    [['list', '--all', '--after', '3'], /drop --after/],
  ])('exits 2 for %j', async (argv: string[], message: RegExp) => {
    const result = await run(argv);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
  });

  it('exits 2 without a token and with a bad URL', async () => {
    expect(await run(['list'], { PLANT_STORE_TOKEN: undefined })).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/no token/),
    });
    expect((await run(['list', '--url', 'not a url'])).code).toBe(2);
  });

  it('takes --url and --token over the environment', async () => {
    const result = await run(['list', '--url', server.url, '--token', TOKEN], {
      PLANT_STORE_URL: 'http://127.0.0.1:1',
      PLANT_STORE_TOKEN: 'wrong',
    });
    expect(result.code).toBe(0);
  });

  it('exits 1 with the server message on a server error, 1 on a connection error', async () => {
    server.enqueue(reply(500, 'internal error'), reply(500, 'internal error'), reply(500, 'internal error'));
    const failed = await run(['create', '--name', 'Fern']);
    expect(failed).toMatchObject({ code: 1, stderr: expect.stringMatching(/^plant-store: internal error \(HTTP 500/) });
    expect(server.requests).toHaveLength(3);
    const refused = await run(['list'], { PLANT_STORE_URL: 'http://127.0.0.1:1' });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/cannot reach the Plant Store/);
  });

  it('exits 130 when interrupted and 1 on a timeout', async () => {
    server.enqueue(hang);
    const controller = new AbortController();
    const pending = run(['get', '1'], {}, controller.signal);
    await eventually('the request to reach the server', () => server.requests.length > 0);
    controller.abort();
    expect(await pending).toMatchObject({ code: 130, stderr: 'plant-store: interrupted\n' });
    server.enqueue(hang, hang, hang);
    const slow = await run(['list', '--timeout', '50']);
    expect(slow.code).toBe(1);
    expect(slow.stderr).toMatch(/no response within 50 ms/);
  });
});
