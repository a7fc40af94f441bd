import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IdempotencyKey } from '@plant-store/domain';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { importKey } from '../src/cli-import.js';
import type { CliIo } from '../src/run-cli.js';
import { runCliAgainst } from './cli-run.js';
import { stagePlants, startFakeServer, type FakeServer, type ScriptedHandler } from './fake-server.js';
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
const keysSent = () => creates().map((r) => r.headers['idempotency-key'] as string);
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
  it('creates every line, ids kept or assigned, skipping blank lines, and prints the summary', async () => {
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
    expect(new Set(keysSent()).size).toBe(3);
    for (const key of keysSent()) expect(key).toMatch(/^import:[0-9a-f]{32}:[135]:[0-9a-f]{16}$/);
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
    const path = await file('plants.jsonl', ['{"name":"Fern"}', '{"name":"Fern"}', '{"id":7,"name":"Ivy"}']);
    await run(['import', path]);
    const first = keysSent();
    expect(new Set(first).size).toBe(3);
    expect(await run(['import', path])).toEqual({
      code: 0,
      stdout: '',
      stderr: 'created 0, replayed 3, already present 0, failed 0\n',
    });
    expect(keysSent().slice(3).sort()).toEqual([...first].sort());
    expect(names()).toEqual(['Fern', 'Fern', 'Ivy']);
  });

  it('sends other keys for another file, even for the same lines', async () => {
    const path = await file('a.jsonl', ['{"name":"Fern"}']);
    await run(['import', path]);
    const other = await file('b.jsonl', ['{"name":"Fern"}', '{"name":"Ivy"}']);
    expect((await run(['import', other])).stderr).toBe('created 2, replayed 0, already present 0, failed 0\n');
    const [a, b1] = keysSent();
    expect(b1).not.toBe(a);
    expect(a?.split(':')[2]).toBe(b1?.split(':')[2]);
    expect(a?.split(':')[3]).toBe(b1?.split(':')[3]);
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
    expect(creates()).toHaveLength(2);
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

  it('never has more than --concurrency creates in flight', async () => {
    const path = await file(
      'many.jsonl',
      Array.from({ length: 20 }, (_, i) => JSON.stringify({ name: `plant ${i + 1}` })),
    );
    let inFlight = 0;
    let most = 0;
    const slow: ScriptedHandler = (req, res, body, route) => {
      most = Math.max(most, ++inFlight);
      setTimeout(() => {
        inFlight--;
        route(req, res, body);
      }, 10);
    };
    server.enqueue(...Array.from({ length: 20 }, () => slow));
    expect((await run(['import', path, '--concurrency', '3'])).code).toBe(0);
    expect(most).toBe(3);
    expect(server.plants.size).toBe(20);
  });

  describe('after an interruption', () => {
    // Explicit ids below every id the server assigns (it assigns above the largest), so none collide.
    const lines = Array.from({ length: 10 }, (_, i) =>
      JSON.stringify(i % 3 === 0 ? { id: 1 + i, name: `plant ${i + 1}` } : { name: `plant ${i + 1}` }),
    );
    const expected = [...lines.map((line) => (JSON.parse(line) as { name: string }).name), 'marker'].sort();
    beforeEach(() => stagePlants(server, [{ id: 100, name: 'marker' }]));

    /** Lets `before` creates through, then aborts `controller` while the next one is being stored. */
    const interruptAfter = (before: number, controller: AbortController): void => {
      const abort: ScriptedHandler = (req, res, body, route) => {
        controller.abort();
        route(req, res, body);
      };
      server.enqueue(...Array.from({ length: before }, () => through), abort);
    };

    it('stops, prints the summary so far and exits 130; the run again replays the sent lines and creates the rest', async () => {
      const path = await file('plants.jsonl', lines);
      const controller = new AbortController();
      interruptAfter(4, controller);
      const first = await run(['import', path, '--concurrency', '1'], { signal: controller.signal });
      expect(first).toEqual({
        code: 130,
        stdout: '',
        stderr:
          'created 4, replayed 0, already present 0, failed 0\n' +
          'plant-store: interrupted; run the same import again to finish it: the lines already sent are replayed, not created twice\n',
      });
      // The fifth line was stored although its answer never arrived.
      expect(server.plants.size).toBe(1 + 5);

      const second = await run(['import', path, '--concurrency', '1']);
      expect(second).toEqual({ code: 0, stdout: '', stderr: 'created 5, replayed 5, already present 0, failed 0\n' });
      expect(names()).toEqual(expected);
    });

    it('creates every line exactly once with lines in flight at the interruption', async () => {
      const path = await file('plants.jsonl', lines);
      const controller = new AbortController();
      interruptAfter(5, controller);
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
        total: 10,
      });
      expect(replayed).toBeGreaterThanOrEqual(5);
      expect(names()).toEqual(expected);
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
