import { statSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { knobs } from './support/knobs.js';
import { Ledger, seeded } from './support/ledger.js';
import { startServer, tempDir, type ServerProcess } from './support/processes.js';
import { addEndpoint, loopbackWebhooks, WebhookReceiver } from './support/receiver.js';
import { readSqlite } from './support/store.js';
import { createToken } from './support/token.js';

/**
 * The SQLite WAL keeps its bound under sustained writes (docs/explanation/storage.md, "Checkpoints
 * off the request path"): 50 clients create and delete plants without a pause, with a webhook
 * endpoint registered (every write also goes through the outbox, and the dispatcher records its
 * attempts), while the WAL file's size is sampled every 20 ms. It must stay within twice the
 * 4 MiB bound the storage page documents: a checkpointer that can restart the WAL only in
 * pauses lets it grow for as long as the load lasts. At the end every acknowledged write is in
 * the file and nothing else.
 */

const BOUND_BYTES = 4 * 1024 * 1024;
const CONCURRENCY = 50;
const LOAD_MS = knobs.walSeconds * 1000;
const SAMPLE_EVERY_MS = 20;

describe('the SQLite WAL under sustained writes', () => {
  let server: ServerProcess | undefined;
  let receiver: WebhookReceiver | undefined;
  afterAll(async () => {
    await server?.stop('SIGKILL');
    await receiver?.close();
  });

  it(`stays within 2 × ${BOUND_BYTES / 1024 / 1024} MiB while ${CONCURRENCY} clients write`, async () => {
    const seed = Number(process.env['TORTURE_SEED'] ?? Date.now() % 1_000_000_007);
    const where = `wal-bound (seed ${seed})`;
    const dir = await tempDir('torture-wal');
    const file = join(dir.path, 'plant-store.db');
    const databaseUrl = `sqlite:${file}`;
    const token = await createToken(databaseUrl, 'torture-wal');
    receiver = await WebhookReceiver.start();
    await addEndpoint(databaseUrl, receiver.url);
    server = await startServer({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn', ...loopbackWebhooks });
    const { port } = server;
    const ledger = new Ledger(1, { deleteShare: 0.2 });
    const rand = seeded(seed);
    const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
    await ledger.fence(agent, port, token, 1_000_000_000);

    const walFile = `${file}-wal`;
    const samples: number[] = [];
    const sampler = setInterval(() => {
      try {
        samples.push(statSync(walFile).size);
      } catch {
        samples.push(0);
      }
    }, SAMPLE_EVERY_MS);
    const started = Date.now();
    const worker = async (): Promise<void> => {
      while (Date.now() - started < LOAD_MS) await ledger.step(agent, port, token, 'wal', rand);
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    clearInterval(sampler);
    agent.destroy();

    const largest = Math.max(...samples);
    const over = samples.filter((size) => size > BOUND_BYTES).length;
    const writes = ledger.tally.creates + ledger.tally.deletes;
    const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
    console.log(
      `wal-bound sqlite: ${CONCURRENCY} clients for ${(LOAD_MS / 1000).toFixed(0)} s, ${writes} writes acknowledged ` +
        `(${Math.round(writes / (LOAD_MS / 1000))}/s), ${ledger.tally.refused} refused; WAL sampled ${samples.length} times: ` +
        `largest ${mib(largest)} MiB, ${over} samples above ${mib(BOUND_BYTES)} MiB (seed ${seed})`,
    );
    expect(ledger.violations.slice(0, 10), `${where}: answers under the load`).toEqual([]);
    expect(ledger.tally.refused, `${where}: writes refused`).toBe(0);
    expect(writes, `${where}: writes acknowledged`).toBeGreaterThan(1000);
    expect(largest, `${where}: the WAL's largest size (${mib(largest)} MiB)`).toBeLessThanOrEqual(2 * BOUND_BYTES);

    const code = await server.stop('SIGTERM');
    expect(code, `${where}: exit code after SIGTERM:\n${server.output().slice(-2000)}`).toBe(0);
    const snapshot = readSqlite(file);
    expect(snapshot.integrity, `${where}: PRAGMA integrity_check`).toBe('ok');
    expect(
      ledger.reconcile(snapshot.plants).slice(0, 20),
      `${where}: the store against the acknowledged writes`,
    ).toEqual([]);
    await dir.remove();
  });
});
