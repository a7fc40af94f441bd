import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CliIo } from '../src/run-cli.js';
import { runCliAgainst } from './cli-run.js';
import { stagePlants, startFakeServer, type FakeServer, type ScriptedHandler } from './fake-server.js';
import { fakeTerminal } from './fake-terminal.js';

let server: FakeServer;

const run = (argv: readonly string[], io: Partial<CliIo> = {}) => runCliAgainst(server, argv, io);

const jsonLines = (plants: readonly object[]): string => plants.map((plant) => `${JSON.stringify(plant)}\n`).join('');

const PLANTS = [
  { id: 1, name: 'Boston Fern', tag: 'shade' },
  { id: 2, name: 'Monstera' },
  { id: 3, name: 'FERNLEAF' },
  { id: 4, name: 'Staff', tag: 'shade' },
  { id: 5, name: 'asparagus fern', tag: 'shade' },
];

beforeEach(async () => {
  server = await startFakeServer();
  stagePlants(server, PLANTS);
});

afterEach(async () => {
  await server.close();
});

describe('plant-store export', () => {
  it('writes one JSON line per plant, in id order across pages, and nothing on a piped stderr', async () => {
    expect(await run(['export', '--limit', '2'])).toEqual({ code: 0, stdout: jsonLines(PLANTS), stderr: '' });
    expect(server.requests.map((r) => r.url)).toEqual([
      '/plants?limit=2',
      '/plants?limit=2&after=2',
      '/plants?limit=2&after=4',
    ]);
    // Counting costs the server work that only the progress bar would use.
    expect(server.requests.map((r) => r.headers['prefer'])).toEqual([undefined, undefined, undefined]);
  });

  it('writes the members as the API has them: id, name, then tag only when present', async () => {
    stagePlants(server, [{ id: 9, tag: 'x', name: 'Ivy' } as never, { id: 10, name: 'Fig' }]);
    expect((await run(['export'])).stdout).toBe('{"id":9,"name":"Ivy","tag":"x"}\n{"id":10,"name":"Fig"}\n');
  });

  it('follows --q, --tag and --sort through every page', async () => {
    const result = await run(['export', '--q', 'FERN', '--tag', 'shade', '--sort', '-name', '--limit', '1']);
    expect(result).toEqual({ code: 0, stdout: jsonLines([PLANTS[0], PLANTS[4]] as object[]), stderr: '' });
    expect(server.requests[0]?.url).toBe('/plants?limit=1&sort=-name&q=FERN&tag=shade');
    for (const request of server.requests.slice(1))
      expect(request.url).toMatch(/^\/plants\?limit=1&sort=-name&cursor=[^&]+&q=FERN&tag=shade$/);
  });

  it('exports nothing, successfully, when nothing matches', async () => {
    expect(await run(['export', '--tag', 'none'])).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it('waits for a full stdout to drain instead of buffering every plant', async () => {
    stagePlants(
      server,
      Array.from({ length: 300 }, (_, i) => ({ id: i + 1, name: `plant ${i + 1}` })),
    );
    let written = '';
    let mostBuffered = 0;
    const stdout = new Writable({
      highWaterMark: 64,
      write(chunk: Buffer, _encoding, callback) {
        written += chunk.toString('utf8');
        setImmediate(callback);
      },
    });
    const write = stdout.write.bind(stdout);
    const watched = Object.assign(stdout, {
      write: (chunk: string) => {
        const ok = write(chunk);
        mostBuffered = Math.max(mostBuffered, stdout.writableLength);
        return ok;
      },
    });
    const result = await run(['export', '--limit', '100'], { stdout: watched });
    expect(result.code).toBe(0);
    expect(written.split('\n').filter((line) => line !== '')).toHaveLength(300);
    // Without waiting for 'drain' all 100 lines of a page would sit in the buffer at once.
    expect(mostBuffered).toBeLessThan(64 + 40);
  });

  it('shows a progress bar on a terminal, its total counted once on the first page', async () => {
    const terminal = fakeTerminal();
    const result = await run(['export', '--limit', '2'], { stderr: terminal.stream });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(jsonLines(PLANTS));
    expect(terminal.text()).toMatch(/ 0\/5 plants \| 0\/s \| ETA /);
    expect(terminal.text()).toMatch(/ 5\/5 plants \| \d+\/s \| ETA /);
    expect(terminal.text()).not.toMatch(/ \d+\/[0-4] plants/);
    expect(server.requests.map((r) => r.headers['prefer'])).toEqual(['count=exact', undefined, undefined]);
  });

  it('still exports, with a bar of what is done, when the server does not count', async () => {
    const uncounted: ScriptedHandler = (req, res, body, route) => {
      delete req.headers['prefer'];
      route(req, res, body);
    };
    server.enqueue(uncounted);
    const terminal = fakeTerminal();
    const result = await run(['export', '--limit', '2'], { stderr: terminal.stream });
    expect(result).toMatchObject({ code: 0, stdout: jsonLines(PLANTS) });
    expect(terminal.text()).toMatch(/5\/5 plants/);
    expect(server.requests.map((r) => r.url)[1]).toBe('/plants?limit=2');
  });

  it.each([
    [['export', 'extra'], /export takes no arguments/],
    [['export', '--sort', 'size'], /^plant-store: --sort: expected one of id, -id, name, -name/],
    [['export', '--limit', '0'], /--limit: expected an integer from 1 to 1000/],
    [['export', '--after', '3'], /export does not take --after/],
    [['export', '--concurrency', '3'], /export does not take --concurrency/],
  ])('exits 2 for %j without a request', async (argv, message) => {
    const result = await run(argv);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(server.requests).toHaveLength(0);
  });

  it('exits 1 with the server message when a page fails', async () => {
    const result = await run(['export'], { env: { PLANT_STORE_URL: server.url, PLANT_STORE_TOKEN: 'wrong' } });
    expect(result).toMatchObject({ code: 1, stdout: '' });
    expect(result.stderr).toMatch(/^plant-store: unknown, expired or revoked token \(HTTP 401/);
  });
});
