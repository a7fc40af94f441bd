import http from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer, tempDir, type ServerProcess, until } from '@plant-store/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The change feed at a shutdown, as an operator meets it: the built server, a stream and a long
 * poll open, SIGTERM. Both end cleanly (the stream's chunked answer finished, the long poll
 * answered) within 1 s, at the start of the drain, and the process exits 0.
 */

const main = join(dirname(fileURLToPath(import.meta.url)), '../../dist/main.js');
const token = 'pst_changes_shutdown_test_token_0123456789';

describe('GET /plants/changes at SIGTERM', () => {
  let dir: { path: string; remove(): Promise<void> };
  let server: ServerProcess;
  beforeAll(async () => {
    dir = await tempDir('plant-store-changes-shutdown-');
    server = await startServer(
      {
        DATABASE_URL: `sqlite:${join(dir.path, 'plants.db')}`,
        PLANT_STORE_STATIC_TOKEN: token,
        SHUTDOWN_TIMEOUT_MS: '10000',
        METRICS_PORT: '0',
      },
      { main },
    );
  });
  afterAll(async () => {
    if (server?.alive()) await server.stop('SIGKILL');
    await dir?.remove();
  });

  it('ends every stream and long poll cleanly within 1 s, and exits 0', async () => {
    const open = (accept: string, query: string) =>
      new Promise<{ status: number; body: Promise<{ text: string; complete: boolean; at: number }> }>(
        (resolve, reject) => {
          http
            .get(
              `${server.url}/plants/changes${query}`,
              { agent: false, headers: { authorization: `Bearer ${token}`, accept } },
              (res) => {
                let text = '';
                res.setEncoding('utf8');
                res.on('data', (chunk: string) => (text += chunk));
                const body = new Promise<{ text: string; complete: boolean; at: number }>((done) => {
                  res.on('end', () => done({ text, complete: res.complete, at: Date.now() }));
                  res.on('close', () => done({ text, complete: res.complete, at: Date.now() }));
                });
                resolve({ status: res.statusCode ?? 0, body });
              },
            )
            .on('error', reject);
        },
      );
    const stream = await open('text/event-stream', '');
    expect(stream.status).toBe(200);
    // A long poll's head comes with its answer: start it, and wait until the server holds it.
    const polled = new Promise<{ status: number; text: string; at: number }>((resolve, reject) => {
      http
        .get(
          `${server.url}/plants/changes?since=0&wait=30`,
          { agent: false, headers: { authorization: `Bearer ${token}` } },
          (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => (text += chunk));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, text, at: Date.now() }));
          },
        )
        .on('error', reject);
    });
    // The server's own count of what it holds: the stream and the long poll. (A line of the
    // exposition format compared whole: this only waits, the figures are tested elsewhere.)
    await until('the stream and the long poll to be held', async () =>
      (await (await fetch(`http://127.0.0.1:${server.metricsPort}/metrics`)).text())
        .split('\n')
        .includes('plant_store_change_streams_open 2'),
    );
    const signalled = Date.now();
    const exit = server.stop('SIGTERM', 15_000);
    const [streamEnd, poll] = await Promise.all([stream.body, polled]);
    expect(streamEnd.complete).toBe(true);
    expect(streamEnd.text.startsWith('retry: 2000\n\n')).toBe(true);
    expect(streamEnd.at - signalled).toBeLessThan(1000);
    expect(poll.status).toBe(200);
    expect(JSON.parse(poll.text)).toEqual([]);
    expect(poll.at - signalled).toBeLessThan(1000);
    expect(await exit).toBe(0);
  });
});
