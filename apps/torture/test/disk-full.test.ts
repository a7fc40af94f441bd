import { statSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { skipOrFail, until } from '@plant-store/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { send } from './support/http.js';
import { Ledger, seeded, type Expected } from './support/ledger.js';
import { startServer, type ServerProcess } from './support/processes.js';
import { addEndpoint, checkAttempts, listDeliveries, loopbackWebhooks, WebhookReceiver } from './support/receiver.js';
import { mountSmallFs, type SmallFs } from './support/small-fs.js';
import { readSqlite } from './support/store.js';
import { createToken } from './support/token.js';

/**
 * Disk full on SQLite: the store lives on a 16 MiB tmpfs of its own, with a webhook endpoint
 * registered so that every write also goes through the outbox. Creates with long names (and
 * deletes) run from 16 clients; a filler file takes all but a little of the space, so the store
 * soon runs out. While it is full, writes must be refused with the contract's JSON 503 (never a
 * 500, never a crash, never a connection dropped) and reads — a plant by id, a page of the list —
 * keep answering 200 with the plants as acknowledged. Then the filler goes: writes resume. At the
 * end, stopped, the file passes `PRAGMA integrity_check`, holds every acknowledged create and
 * delete and nothing else (a refused write changed nothing), and every acknowledged write's event
 * reached the receiver (held in the outbox while the disk was full, if need be).
 */

/**
 * 16, not 8 (nor 4): each write now also writes the name indexes and the search index (about 20 KiB
 * of WAL a write), and the 200 writes after the space came back, arriving faster than the WAL is
 * restarted on a quiet machine, filled 8 MiB again (WAL 3.5 → 7.8 MiB; 5 runs of 5 refused 77–141).
 */
const SIZE_MIB = 16;
/** What the filler leaves free: a few hundred long-named creates. */
const LEAVE_BYTES = 384 * 1024;
const CONCURRENCY = 16;
const FULL_MS = 2_000;
/** Writes after the space came back that must all be acknowledged. */
const WRITES_AFTER = 200;
const SCHEDULE = Array.from({ length: 40 }, () => '250ms').join(',');

/** Names of 200 code points (astral, 4 bytes each in UTF-8) and tags of 100 (3 bytes each): the disk fills fast. */
class LongNames extends Ledger {
  private n = 0;
  override newPlant(label: string): Expected {
    const n = this.n++;
    const prefix = `${label} #${n} `;
    const name = prefix + (n % 2 === 0 ? '🌿' : '𝕸').repeat(200 - [...prefix].length);
    return { name, tag: n % 4 === 3 ? undefined : '植'.repeat(100) };
  }
}

describe('disk full on SQLite', () => {
  let fs: SmallFs | undefined;
  let skip: string | undefined;
  let server: ServerProcess | undefined;
  let receiver: WebhookReceiver | undefined;
  beforeAll(async () => {
    const mounted = await mountSmallFs('disk-full', SIZE_MIB);
    if ('skip' in mounted) skip = mounted.skip;
    else fs = mounted;
  });
  afterAll(async () => {
    await server?.stop('SIGKILL');
    await receiver?.close();
    await fs?.unmount();
  });

  it('refuses writes with JSON 503 while the disk is full, keeps reading, resumes, and loses nothing', async (ctx) => {
    if (fs === undefined) return skipOrFail(ctx, 'disk-full', `${skip ?? 'no small filesystem'} (CI runs as root)`);
    const disk = fs;
    const seed = Number(process.env['TORTURE_SEED'] ?? Date.now() % 1_000_000_007);
    const where = `disk-full (seed ${seed})`;
    const file = join(disk.path, 'plant-store.db');
    const databaseUrl = `sqlite:${file}`;
    const token = await createToken(databaseUrl, 'torture-disk-full');
    /** The disk's free space and the WAL's size, for a failure to say how full it was. */
    const room = (): string => {
      let wal = 0;
      try {
        wal = statSync(`${file}-wal`).size;
      } catch {
        // no WAL file (yet)
      }
      return `${(disk.freeBytes() / 1024).toFixed(0)} KiB free, WAL ${(wal / 1024).toFixed(0)} KiB`;
    };
    receiver = await WebhookReceiver.start();
    const secret = await addEndpoint(databaseUrl, receiver.url);
    server = await startServer({
      DATABASE_URL: databaseUrl,
      LOG_LEVEL: 'warn',
      WEBHOOK_TIMEOUT_MS: '1000',
      WEBHOOK_RETRY_SCHEDULE: SCHEDULE,
      ...loopbackWebhooks,
    });
    const { port } = server;
    const auth = { authorization: `Bearer ${token}` };
    // 503 is a legitimate refusal; anything else but 201/204/409 is a violation (a 500 included)
    const ledger = new LongNames(1, { deleteShare: 0.2, allowUnavailable: true });
    const rand = seeded(seed);
    const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
    await ledger.fence(agent, port, token, 1_000_000_000);

    /** The write load, from CONCURRENCY clients, until `done()` or `maxMs`, or `maxSteps` more requests. */
    const load = async (
      label: string,
      done: () => boolean,
      maxMs: number,
      maxSteps = Infinity,
      concurrency = CONCURRENCY,
    ): Promise<void> => {
      const started = Date.now();
      const last = ledger.tally.requests + maxSteps;
      const worker = async (): Promise<void> => {
        while (!done() && Date.now() - started < maxMs && ledger.tally.requests < last)
          await ledger.step(agent, port, token, label, rand);
      };
      await Promise.all(Array.from({ length: concurrency }, worker));
    };

    // 1. Room to spare: every write acknowledged.
    await load('room', () => false, 5_000, 150);
    expect(ledger.violations, `${where}: before the disk filled`).toEqual([]);
    expect(ledger.tally.refused, `${where}: writes refused with room to spare`).toBe(0);
    const before = { creates: ledger.tally.creates, deletes: ledger.tally.deletes };

    // 2. The filler takes all but LEAVE_BYTES; the load runs until the store is refused writes.
    const fillerBytes = disk.fill(LEAVE_BYTES);
    const fillStarted = Date.now();
    await load('filling', () => ledger.tally.refused >= 50 || ledger.violations.length > 0, 15_000);
    expect(
      ledger.violations.slice(0, 10),
      `${where}: write answers as the disk filled (only 201/204/409 or the contract's 503)`,
    ).toEqual([]);
    expect(
      ledger.tally.refused,
      `${where}: the disk never filled (${disk.freeBytes()} bytes free)`,
    ).toBeGreaterThanOrEqual(50);
    const fullAfterMs = Date.now() - fillStarted;
    const freeWhenFull = disk.freeBytes();
    const ackedWhileFilling = ledger.tally.creates + ledger.tally.deletes - before.creates - before.deletes;

    // 3. Full: the writes go on (mostly refused) and reads must keep working.
    const refusedAtFull = ledger.tally.refused;
    const ackedAtFull = ledger.tally.creates + ledger.tally.deletes;
    const reads = { ok: 0, lists: 0, gone: [] as number[], problems: [] as string[] };
    let reading = true;
    const reader = async (): Promise<void> => {
      const readAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      while (reading) {
        const ids = [...ledger.present.keys()];
        const id = ids[Math.floor(Math.random() * ids.length)] as number;
        const expected = ledger.present.get(id) as Expected;
        const one = await send({ agent: readAgent, port, method: 'GET', path: `/plants/${id}`, headers: auth });
        if (one.status === 200) {
          const want = JSON.stringify(
            expected.tag === undefined ? { id, name: expected.name } : { id, name: expected.name, tag: expected.tag },
          );
          if (one.body === want) reads.ok += 1;
          else
            reads.problems.push(
              `GET /plants/${id} → ${one.body.slice(0, 120)}…, acknowledged as ${want.slice(0, 120)}…`,
            );
        } else if (one.status === 404) {
          reads.gone.push(id); // legitimate only if its delete is acknowledged: checked below
        } else {
          reads.problems.push(`GET /plants/${id} → ${one.status} ${one.body.slice(0, 200)}`);
        }
        const page = await send({
          agent: readAgent,
          port,
          method: 'GET',
          path: `/plants?limit=100&after=${Math.max(0, id - 50)}`,
          headers: auth,
        });
        if (page.status === 200 && Array.isArray(JSON.parse(page.body))) reads.lists += 1;
        else reads.problems.push(`GET /plants?limit=100 → ${page.status} ${page.body.slice(0, 200)}`);
      }
      readAgent.destroy();
    };
    const readers = Promise.all([reader(), reader()]);
    const fullStarted = Date.now();
    await load('full', () => false, FULL_MS);
    reading = false;
    await readers;
    const fullFor = Date.now() - fullStarted;
    const refusedWhileFull = ledger.tally.refused - refusedAtFull;
    const ackedWhileFull = ledger.tally.creates + ledger.tally.deletes - ackedAtFull;
    expect(server.alive(), `${where}: the server died on a full disk:\n${server.output().slice(-3000)}`).toBe(true);
    expect(
      ledger.violations.slice(0, 10),
      `${where}: write answers on a full disk (only 201/204/409 or the contract's 503)`,
    ).toEqual([]);
    expect(ledger.tally.unknown, `${where}: writes that got no answer`).toBe(0);
    expect(refusedWhileFull, `${where}: no write was refused while the disk was full`).toBeGreaterThan(0);
    expect(reads.problems.slice(0, 10), `${where}: reads while the disk was full`).toEqual([]);
    expect(
      reads.gone.filter((id) => !ledger.deletedForGood.has(id)),
      `${where}: acknowledged plants that read 404`,
    ).toEqual([]);
    expect(reads.ok, `${where}: reads answered while full`).toBeGreaterThan(10);

    // 4. Space again: writes resume, and then every write is acknowledged.
    disk.removeFiller();
    const freedAt = Date.now();
    const acked = (): number => ledger.tally.creates + ledger.tally.deletes;
    const ackedAtFree = acked();
    await load('resuming', () => acked() > ackedAtFree, 10_000, Infinity, 1);
    const resumedMs = Date.now() - freedAt;
    expect(
      acked(),
      `${where}: writes did not resume within 10 s of the space coming back (${room()}):\n${server.output().slice(-2000)}`,
    ).toBeGreaterThan(ackedAtFree);
    const refusedAtResume = ledger.tally.refused;
    const ackedAtResume = acked();
    await load('after', () => false, 15_000, WRITES_AFTER, 8);
    expect(
      ledger.tally.refused - refusedAtResume,
      `${where}: writes refused after they had resumed (${room()}):\n${server.output().slice(-2000)}`,
    ).toBe(0);
    expect(ledger.violations.slice(0, 10), `${where}: answers after the disk was freed`).toEqual([]);
    agent.destroy();

    // 5. The outbox: every acknowledged write's event delivered, nothing pending.
    const expected = new Set([
      ...[...ledger.present.keys()].map((id) => `plant.created:${id}`),
      ...[...ledger.deletedForGood].flatMap((id) => [`plant.created:${id}`, `plant.deleted:${id}`]),
    ]);
    const missing = (): string[] => {
      const delivered = receiver?.deliveredKeys() ?? new Set();
      return [...expected].filter((key) => !delivered.has(key));
    };
    await until(`${where}: every acknowledged write's event delivered`, () => missing().length === 0, 20_000, {
      detail: () => `${missing().length} missing, e.g. ${missing().slice(0, 5).join(', ')}`,
      everyMs: 100,
    });
    const allDeliveredMs = Date.now() - freedAt;
    // An attempt whose record failed on the full disk stays held until its hold ends (timeout + 15 s), then goes again.
    const pendingThen = (await listDeliveries(databaseUrl, 'pending')).length;
    await until(
      `${where}: an empty outbox`,
      async () => (await listDeliveries(databaseUrl, 'pending')).length === 0,
      25_000,
      { everyMs: 250 },
    );
    const emptyMs = Date.now() - freedAt;
    const deliveries = await listDeliveries(databaseUrl);
    expect(
      deliveries.filter((d) => d.status !== 'delivered').slice(0, 10),
      `${where}: deliveries not delivered`,
    ).toEqual([]);
    expect(deliveries.length, `${where}: deliveries in the store (one per acknowledged write)`).toBe(expected.size);
    const check = checkAttempts(receiver.attempts, secret);
    expect(check.problems.slice(0, 10), `${where}: problems with the attempts`).toEqual([]);
    expect(
      [...check.byKey.keys()].filter((key) => !expected.has(key)),
      `${where}: events of writes that were refused`,
    ).toEqual([]);
    for (const [id, plant] of ledger.present) {
      const [event] = check.byKey.get(`plant.created:${id}`) ?? [];
      expect(event?.data, `${where}: the plant.created of ${id}`).toEqual(
        plant.tag === undefined ? { id, name: plant.name } : { id, name: plant.name, tag: plant.tag },
      );
    }
    expect(receiver.overlaps.slice(0, 5), `${where}: attempts of one webhook-id in flight at once`).toEqual([]);

    // 6. Stopped: the file is sound and holds exactly what was acknowledged.
    const code = await server.stop('SIGTERM');
    expect(code, `${where}: exit code after SIGTERM:\n${server.output().slice(-2000)}`).toBe(0);
    const snapshot = readSqlite(file);
    expect(snapshot.integrity, `${where}: PRAGMA integrity_check`).toBe('ok');
    expect(
      ledger.reconcile(snapshot.plants).slice(0, 20),
      `${where}: the store against the acknowledged writes`,
    ).toEqual([]);
    const storeErrors = server
      .output()
      .split('\n')
      .filter((line) => /"level":50/.test(line)).length;

    console.log(
      `disk-full sqlite: ${SIZE_MIB} MiB tmpfs; ${before.creates} creates + ${before.deletes} deletes with room, then a ${(fillerBytes / 1024).toFixed(0)} KiB filler: ` +
        `full after ${ackedWhileFilling} more writes (${(fullAfterMs / 1000).toFixed(1)} s, ${(freeWhenFull / 1024).toFixed(0)} KiB left); ` +
        `while full (${(fullFor / 1000).toFixed(1)} s): ${refusedWhileFull} writes refused with JSON 503, ${ackedWhileFull} acknowledged, 0 × 500, ${reads.ok} reads by id + ${reads.lists} list pages answered 200, 0 failed; ` +
        `writes resumed ${resumedMs} ms after the filler went, then ${acked() - ackedAtResume}/${WRITES_AFTER} acknowledged; ` +
        `${ledger.tally.creates} creates + ${ledger.tally.deletes} deletes acknowledged in all, ${ledger.tally.refused} refused, ${snapshot.plants.size} plants at the end, lost 0, invented 0, integrity_check ${snapshot.integrity}; ` +
        `${expected.size} events delivered (all ${(allDeliveredMs / 1000).toFixed(1)} s after the space came back; ${check.duplicates} duplicate(s), ${receiver.attempts.length} attempts), ` +
        `${pendingThen} still pending then (held after their record failed), outbox empty after ${(emptyMs / 1000).toFixed(1)} s; ${storeErrors} error log lines (seed ${seed})`,
    );
  });
});
