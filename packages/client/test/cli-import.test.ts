import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IdempotencyKey } from '@plant-store/domain';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { IMPORT_BATCH_LINES, importBatchKey, importKey } from '../src/cli-import.js';
import type { CliIo } from '../src/run-cli.js';
import { runCliAgainst } from './cli-run.js';
import {
  bulkLimit,
  reply,
  stagePlants,
  startFakeServer,
  type FakeServer,
  type ScriptedHandler,
} from './fake-server.js';
import { fakeTerminal } from './fake-terminal.js';

let server: FakeServer;
let dir: string;

const run = (argv: readonly string[], io: Partial<CliIo> = {}) => runCliAgainst(server, argv, io);

/** Writes `lines` (joined by newlines, with a final one) to a file in the test's folder and returns its path. */
const file = async (name: string, lines: readonly string[]): Promise<string> => {
  const path = join(dir, name);
  await writeFile(path, `${lines.join('\n')}\n`);
  return path;
};

const creates = () => server.requests.filter((r) => r.method === 'POST');
/** The creates sent one line each (POST /plants). */
const lineCreates = () => creates().filter((r) => r.url === '/plants');
/** The batches sent (POST /plants/batch). */
const batches = () => creates().filter((r) => r.url === '/plants/batch');
const keysSent = () => lineCreates().map((r) => r.headers['idempotency-key'] as string);
const MARKER = { id: 10_000_000, name: 'marker' };
const batchKeysSent = () => batches().map((r) => r.headers['idempotency-key'] as string);
/**
 * `count` lines `plant N` (N from `from`), every third with its own id N. Stage `MARKER` first, so
 * that every id the server assigns is above them all.
 */
const plantLines = (count: number, from = 1): string[] =>
  Array.from({ length: count }, (_, i) =>
    JSON.stringify((from + i) % 3 === 0 ? { id: from + i, name: `plant ${from + i}` } : { name: `plant ${from + i}` }),
  );
const names = () => [...server.plants.values()].map((p) => p.name).sort();

/** A scripted handler that lets the request through as usual. */
const through: ScriptedHandler = (req, res, body, route) => route(req, res, body);

beforeEach(async () => {
  server = await startFakeServer();
  dir = await mkdtemp(join(tmpdir(), 'plant-store-import-'));
});

afterEach(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

describe('importBatchKey', () => {
  const digest = 'ab'.repeat(32);

  it('is a valid Idempotency-Key made of the file digest and the lines of the batch, never a line key', () => {
    const key = importBatchKey(digest, 1001);
    expect(key).toBe(`import:${'ab'.repeat(16)}:1001-2000`);
    expect(IdempotencyKey.is(key)).toBe(true);
    expect(importBatchKey(digest, 1)).not.toBe(key);
    expect(importBatchKey('cd'.repeat(32), 1001)).not.toBe(key);
    expect(key.split(':')).toHaveLength(3);
    expect(importKey(digest, 1001, '{}').split(':')).toHaveLength(4);
  });
});

describe('importKey', () => {
  const digest = 'ab'.repeat(32);

  it('is a valid Idempotency-Key made of the file digest, the line number and the line hash', () => {
    const key = importKey(digest, 7, '{"name":"Fern"}');
    expect(key).toMatch(/^import:(ab){16}:7:[0-9a-f]{16}$/);
    expect(IdempotencyKey.is(key)).toBe(true);
  });

  it('is the same for the same file and line, and differs when the file, the number or the text does', () => {
    const key = importKey(digest, 7, '{"name":"Fern"}');
    expect(importKey(digest, 7, '{"name":"Fern"}')).toBe(key);
    expect(importKey('cd'.repeat(32), 7, '{"name":"Fern"}')).not.toBe(key);
    expect(importKey(digest, 8, '{"name":"Fern"}')).not.toBe(key);
    expect(importKey(digest, 7, '{"name":"Fern "}')).not.toBe(key);
  });
});

describe('plant-store import', () => {
  it('creates every line in one batch, ids kept or assigned, skipping blank lines, and prints the summary', async () => {
    const path = await file('plants.jsonl', [
      '{"name":"Fern","tag":"shade"}',
      '',
      '{"id":40,"name":"Ivy"}',
      '   ',
      '{"name":"Basil"}',
    ]);
    expect(await run(['import', path])).toEqual({
      code: 0,
      stdout: '',
      stderr: 'created 3, replayed 0, already present 0, failed 0\n',
    });
    expect([...server.plants.values()]).toEqual(
      expect.arrayContaining([
        { id: 40, name: 'Ivy' },
        expect.objectContaining({ name: 'Fern', tag: 'shade' }),
        expect.objectContaining({ name: 'Basil' }),
      ]),
    );
    expect(server.plants.size).toBe(3);
    expect(lineCreates()).toHaveLength(0);
    expect(batchKeysSent()).toEqual([expect.stringMatching(/^import:[0-9a-f]{32}:1-1000$/)]);
    expect(JSON.parse(batches()[0]?.body ?? '')).toEqual([
      { name: 'Fern', tag: 'shade' },
      { name: 'Ivy', id: 40 },
      { name: 'Basil' },
    ]);
  });

  it('cuts the batches by the file alone: every 1000 lines, blank ones included', async () => {
    stagePlants(server, [MARKER]);
    const lines = plantLines(2500);
    lines[999] = '';
    lines[1000] = '  ';
    const path = await file('plants.jsonl', lines);
    expect((await run(['import', path])).stderr).toBe('created 2498, replayed 0, already present 0, failed 0\n');
    expect(
      batchKeysSent()
        .map((key) => key.split(':')[2])
        .sort(),
    ).toEqual(['1-1000', '1001-2000', '2001-3000']);
    const sizes = Object.fromEntries(
      batches().map((r) => [
        (r.headers['idempotency-key'] as string).split(':')[2],
        (JSON.parse(r.body) as unknown[]).length,
      ]),
    );
    expect(sizes).toEqual({ '1-1000': 999, '1001-2000': 999, '2001-3000': 500 });
    expect(server.plants.size).toBe(1 + 2498);
  });

  it('reads a line as JSON Lines do: U+2028 and U+2029 inside a name (as export writes them) end no line', async () => {
    const path = await file('plants.jsonl', [
      JSON.stringify({ name: 'a\u2028b' }),
      JSON.stringify({ name: 'c\u2029d' }),
    ]);
    expect(await run(['import', path])).toEqual({
      code: 0,
      stdout: '',
      stderr: 'created 2, replayed 0, already present 0, failed 0\n',
    });
    expect(names()).toEqual(['a\u2028b', 'c\u2029d']);
  });

  it('sends the same keys when the same file runs again, so the second run replays and creates nothing', async () => {
    stagePlants(server, [MARKER]);
    const path = await file('plants.jsonl', plantLines(1500));
    await run(['import', path]);
    const first = batchKeysSent();
    expect(new Set(first).size).toBe(2);
    expect(await run(['import', path])).toEqual({
      code: 0,
      stdout: '',
      stderr: 'created 0, replayed 1500, already present 0, failed 0\n',
    });
    expect(batchKeysSent().slice(2).sort()).toEqual([...first].sort());
    expect(server.plants.size).toBe(1 + 1500);
  });

  it('sends other keys for another file, even for the same lines', async () => {
    const path = await file('a.jsonl', ['{"name":"Fern"}']);
    await run(['import', path]);
    const other = await file('b.jsonl', ['{"name":"Fern"}', '{"name":"Ivy"}']);
    expect((await run(['import', other])).stderr).toBe('created 2, replayed 0, already present 0, failed 0\n');
    const [a, b] = batchKeysSent();
    expect(b).not.toBe(a);
    expect(a?.split(':')[2]).toBe(b?.split(':')[2]);
  });

  it('reports each bad line by number with the codec messages, sends nothing for it, and exits 1', async () => {
    const path = await file('bad.jsonl', [
      '{"name":"Fern"}',
      '{"name":""}',
      'not json',
      '[]',
      '{"name":"x","colour":"red","id":"7"}',
      '{"name":"Ivy"}',
    ]);
    const result = await run(['import', path, '--concurrency', '1']);
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: [
        'line 2: name: expected 1–200 characters, got 0',
        `line 3: not valid JSON: Unexpected token 'o', "not json" is not valid JSON`,
        'line 4: expected a JSON object, got an array',
        'line 5: colour: unknown member (allowed: name, tag, id); id: expected an integer from 1 to 9007199254740991, got a string "7"',
        'created 2, replayed 0, already present 0, failed 4',
        '',
      ].join('\n'),
    });
    // The batch holds bad lines: it goes line by line, and the bad ones send nothing.
    expect(batches()).toHaveLength(0);
    expect(lineCreates()).toHaveLength(2);
  });

  it('counts a taken id with the same plant as already present, and another plant there as failed', async () => {
    stagePlants(server, [
      { id: 5, name: 'Fern', tag: 'shade' },
      { id: 6, name: 'Ivy' },
    ]);
    const path = await file('taken.jsonl', [
      '{"id":5,"name":"Fern","tag":"shade"}',
      '{"id":6,"name":"Ivy","tag":"climbing"}',
      '{"id":7,"name":"Basil"}',
    ]);
    const result = await run(['import', path, '--concurrency', '1']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^line 2: a plant with id 6 already exists \(HTTP 409, request id [0-9a-f-]{36}\)\ncreated 1, replayed 0, already present 1, failed 1\n$/,
    );
    expect(server.plants.get(6)).toEqual({ id: 6, name: 'Ivy' });
    // The 409s were saved with their keys: a second run replays them and compares again.
    expect((await run(['import', path])).stderr).toMatch(/\ncreated 0, replayed 1, already present 1, failed 1\n$/);
  });

  it('reports a server refusal with its message', async () => {
    const path = await file('plants.jsonl', ['{"name":"Fern"}']);
    const result = await run(['import', path], {
      env: { PLANT_STORE_URL: server.url, PLANT_STORE_TOKEN: 'test-token.read' },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^line 1: this token lacks the scope plants:write \(HTTP 403, request id .*\)\ncreated 0, /,
    );
  });

  it('prints the summary as one JSON object on stdout with --json', async () => {
    const path = await file('plants.jsonl', ['{"name":"Fern"}', '{"name":""}']);
    const result = await run(['import', path, '--json']);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toEqual({
      created: 1,
      replayed: 0,
      alreadyPresent: 0,
      failed: 1,
      interrupted: false,
    });
    expect(result.stderr).toBe('line 2: name: expected 1–200 characters, got 0\n');
  });

  it('never has more than --concurrency requests in flight, batches or lines', async () => {
    stagePlants(server, [MARKER]);
    const path = await file('many.jsonl', [...plantLines(4000), '{"name":""}', ...plantLines(20, 4002)]);
    let inFlight = 0;
    let most = 0;
    const slow: ScriptedHandler = (req, res, body, route) => {
      most = Math.max(most, ++inFlight);
      setTimeout(() => {
        inFlight--;
        route(req, res, body);
      }, 10);
    };
    // Four whole batches, then the fifth line by line (it holds a bad line): 20 creates.
    server.enqueue(...Array.from({ length: 24 }, () => slow));
    const result = await run(['import', path, '--concurrency', '3']);
    expect(result.stderr).toBe(
      'line 4001: name: expected 1–200 characters, got 0\ncreated 4020, replayed 0, already present 0, failed 1\n',
    );
    expect(most).toBe(3);
    expect(batches()).toHaveLength(4);
    expect(lineCreates()).toHaveLength(20);
    expect(server.plants.size).toBe(1 + 4020);
  });

  it.each([
    ['too large for BULK_BODY_LIMIT_BYTES (413)', 'limit'],
    ['refused by a server without POST /plants/batch (405)', 'old server'],
  ])('sends each line on its own when the batch is %s, with the line keys', async (_what, kind) => {
    stagePlants(server, [MARKER]);
    const path = await file('plants.jsonl', plantLines(30));
    const before = bulkLimit.bytes;
    if (kind === 'limit') bulkLimit.bytes = 100;
    else
      server.enqueue(
        reply(405, 'method POST is not allowed on /plants/{id}', { allow: 'GET, PATCH, DELETE, OPTIONS' }),
      );
    try {
      expect(await run(['import', path])).toEqual({
        code: 0,
        stdout: '',
        stderr: 'created 30, replayed 0, already present 0, failed 0\n',
      });
    } finally {
      bulkLimit.bytes = before;
    }
    expect(batches()).toHaveLength(1);
    expect(new Set(keysSent()).size).toBe(30);
    for (const key of keysSent()) expect(key).toMatch(/^import:[0-9a-f]{32}:\d+:[0-9a-f]{16}$/);
    expect(server.plants.size).toBe(1 + 30);
  });

  describe('after an interruption', () => {
    // Ids below every id the server assigns (it assigns above the largest), so none collide.
    const lines = plantLines(3 * IMPORT_BATCH_LINES + 400);
    const expected = [...lines.map((line) => (JSON.parse(line) as { name: string }).name), 'marker'].sort();
    beforeEach(() => stagePlants(server, [MARKER]));

    /** Lets `before` requests through, then aborts `controller` while the next one is being stored. */
    const interruptAfter = (before: number, controller: AbortController): void => {
      const abort: ScriptedHandler = (req, res, body, route) => {
        controller.abort();
        route(req, res, body);
      };
      server.enqueue(...Array.from({ length: before }, () => through), abort);
    };

    it('stops, prints the summary so far and exits 130; the run again replays the sent batches and creates the rest', async () => {
      const path = await file('plants.jsonl', lines);
      const controller = new AbortController();
      interruptAfter(2, controller);
      const first = await run(['import', path, '--concurrency', '1'], { signal: controller.signal });
      expect(first).toEqual({
        code: 130,
        stdout: '',
        stderr:
          'created 2000, replayed 0, already present 0, failed 0\n' +
          'plant-store: interrupted; run the same import again to finish it: the lines already sent are replayed, not created twice\n',
      });
      // The third batch was stored although its answer never arrived.
      expect(server.plants.size).toBe(1 + 3000);

      const second = await run(['import', path, '--concurrency', '1']);
      expect(second).toEqual({
        code: 0,
        stdout: '',
        stderr: 'created 400, replayed 3000, already present 0, failed 0\n',
      });
      expect([...server.plants.values()].map((p) => p.name).sort()).toEqual(expected);
    });

    it('creates every line exactly once with batches in flight at the interruption', async () => {
      const path = await file('plants.jsonl', lines);
      const controller = new AbortController();
      interruptAfter(1, controller);
      const first = await run(['import', path, '--concurrency', '4'], { signal: controller.signal });
      expect(first.code).toBe(130);
      const second = await run(['import', path, '--concurrency', '4']);
      expect(second.code).toBe(0);
      const [created, replayed, present, failed] = (
        /^created (\d+), replayed (\d+), already present (\d+), failed (\d+)\n$/.exec(second.stderr) ?? []
      )
        .slice(1)
        .map(Number);
      expect({ failed, present, total: (created ?? 0) + (replayed ?? 0) }).toEqual({
        failed: 0,
        present: 0,
        total: lines.length,
      });
      expect(replayed).toBeGreaterThanOrEqual(2000);
      expect([...server.plants.values()].map((p) => p.name).sort()).toEqual(expected);
    });

    it('resumes a batch that went line by line where it stopped', async () => {
      const withBad = [...lines.slice(0, 10), '{"name":""}', ...lines.slice(10, 30)];
      const path = await file('plants.jsonl', withBad);
      const controller = new AbortController();
      interruptAfter(12, controller);
      const first = await run(['import', path, '--concurrency', '1'], { signal: controller.signal });
      expect(first.code).toBe(130);
      const second = await run(['import', path, '--concurrency', '1']);
      expect(second.stderr).toBe(
        'line 11: name: expected 1–200 characters, got 0\ncreated 17, replayed 13, already present 0, failed 1\n',
      );
      expect([...server.plants.values()].map((p) => p.name).sort()).toEqual(
        [...lines.slice(0, 30).map((line) => (JSON.parse(line) as { name: string }).name), 'marker'].sort(),
      );
    });

    it('starts nothing when interrupted before the first line', async () => {
      const path = await file('plants.jsonl', lines);
      const controller = new AbortController();
      controller.abort();
      expect((await run(['import', path], { signal: controller.signal })).code).toBe(130);
      expect(creates()).toHaveLength(0);
    });
  });

  it('shows a progress bar of the lines on a terminal, with failed lines above it', async () => {
    const path = await file('plants.jsonl', ['{"name":"Fern"}', '', '{"name":""}', '{"name":"Ivy"}']);
    const terminal = fakeTerminal();
    const result = await run(['import', path, '--concurrency', '1'], { stderr: terminal.stream });
    expect(result.code).toBe(1);
    expect(terminal.text()).toMatch(/line 3: name: expected 1–200 characters, got 0\n/);
    expect(terminal.text()).toMatch(/4\/4 lines \| \d+\/s \| ETA /);
    expect(terminal.text()).toMatch(/created 2, replayed 0, already present 0, failed 1\n$/);
  });

  it.each([
    [['import'], /import takes exactly one file/],
    [['import', 'a.jsonl', 'b.jsonl'], /import takes exactly one file/],
    [['import', 'missing.jsonl'], /^plant-store: cannot read missing.jsonl: no such file\n/],
    [['import', '.'], /^plant-store: cannot read \.: it is a directory\n/],
    [['import', 'x', '--concurrency', '0'], /--concurrency: expected an integer from 1 to 64, got "0"/],
    [['import', 'x', '--concurrency', '65'], /--concurrency: expected an integer from 1 to 64, got "65"/],
    [['import', 'x', '--concurrency', 'many'], /--concurrency: expected an integer from 1 to 64/],
    [['import', 'x', '--tag', 'a'], /import does not take --tag/],
  ])('exits 2 for %j without a request', async (argv, message) => {
    const result = await run(argv);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).toMatch(/Run "plant-store import --help" for usage.\n$/);
    expect(server.requests).toHaveLength(0);
  });

  it('documents the key, the summary and the exit codes in import --help', async () => {
    const help = (await run(['import', '--help'])).stdout;
    for (const text of [
      '--concurrency N',
      'Idempotency-Key',
      'created N, replayed N, already present N, failed N',
      '130',
    ]) {
      expect(help).toContain(text);
    }
  });
});
