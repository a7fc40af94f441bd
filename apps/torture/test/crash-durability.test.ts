import http from 'node:http';
import { join } from 'node:path';
import { describePostgres, freshPostgresUrl, until, type FreshPostgres } from '@plant-store/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { knobs } from './support/knobs.js';
import { Ledger, seeded } from './support/ledger.js';
import { BESIDE_LEDGER, RegisterLoad, withoutRegisters } from './support/register-load.js';
import { checkHistory, describeHistory, formatVerdict, type Verdict } from './support/linearizability.js';
import { startServer, tempDir, type ServerProcess } from './support/processes.js';
import { backendsGone, listAll, readPostgres, readSqlite, type StoredPlant } from './support/store.js';
import { createToken } from './support/token.js';
import { ChangeWatch, deliveryProblems, logProblems, readLog } from './support/change-watch.js';

/**
 * Crash durability: rounds of mixed load from many concurrent requests, SIGKILL at a random moment,
 * restart on the same store. After each round every acknowledged create (201) is there with its
 * exact name and tag, every acknowledged patch (200) too (a stream of patches under the kill),
 * every acknowledged delete (204) is gone, nothing is there that no request asked for (requests
 * without an answer are "unknown": either outcome is allowed), and on SQLite `PRAGMA
 * integrity_check` says ok. A watcher holds a stream of GET /plants/changes open on each round's
 * server and resumes on the next from the last number it read; at the end the whole change log is
 * numbered 1, 2, 3… with no number reused or skipped, replaying it gives the store's plants, and
 * every change a watcher read before a kill is still in it with the same bytes. The watchers, one
 * after another (the last on the server after the last restart, until it reaches the end of the
 * log), read every change of the log exactly once and in order; a stream is refused (connection
 * refused, 503) only after its server was killed, or at most MAX_REFUSALS_WHILE_UP times while it
 * was up, and never answered with another status.
 */

const CONCURRENCY = 48;
/** Upper bounds of one round's load, so that no loop runs unbounded even if the kill misfires. */
const MAX_REQUESTS_PER_ROUND = 20_000;
const MAX_ROUND_MS = 10_000;
/**
 * Streams a watcher may find refused (connection refused, 503) while its server is up; the watcher
 * tries again every 200 ms, so a stream refused for good is refused dozens of times in a round.
 */
const MAX_REFUSALS_WHILE_UP = 2;
/** How long the last watcher may take to reach the end of the log once the load is over. */
const CATCH_UP_MS = 10_000;

interface Target {
  readonly label: string;
  readonly databaseUrl: string;
  /** Reads the store directly (the server is dead); also returns the integrity verdict where there is one. */
  read(): Promise<{ plants: ReadonlyMap<number, StoredPlant>; integrity: string }>;
  /**
   * Resolves once nothing the killed server started can still change the store. SQLite: at once
   * (the process is gone). PostgreSQL: a backend finishes the statement it was running (and may
   * commit it) after its client died, so until the killed server's backends are gone a read could
   * see a state that changes under it.
   */
  settled(): Promise<void>;
}

/**
 * What is wrong with the streams a watcher found refused: an answer other than 503 (a 401 or a 500
 * is never right, up or down), or more than MAX_REFUSALS_WHILE_UP refusals while its server was up.
 */
const refusalProblems = (watch: ChangeWatch): string[] => {
  const tally = (failures: readonly { readonly answer: number | string }[]): string => {
    const counts = new Map<number | string, number>();
    for (const { answer } of failures) counts.set(answer, (counts.get(answer) ?? 0) + 1);
    return [...counts].map(([answer, n]) => `${answer} × ${n}`).join(', ');
  };
  const problems: string[] = [];
  const wrong = watch.failures.filter((f) => f.answer !== 503 && f.answer !== 'no connection');
  if (wrong.length > 0) problems.push(`streams answered ${tally(wrong)}`);
  const whileUp = watch.failures.filter((f) => !f.down);
  if (whileUp.length > MAX_REFUSALS_WHILE_UP)
    problems.push(
      `${whileUp.length} streams refused while the server was up (${tally(whileUp)}), at most ${MAX_REFUSALS_WHILE_UP} allowed`,
    );
  return problems;
};

/** The register load's ids: above the ledger's chosen ids, below its fence and the ids the server assigns. */

/**
 * Runs `rounds` crash rounds against `target`, the ledger's load and beside it the contended
 * register load (support/register-load.ts: creates, reads, patches with and without If-Match and
 * deletes of 8 ids, each a register across the kills); returns both for the summary.
 */
const crashRounds = async (
  target: Target,
  rounds: number,
  seed: number,
): Promise<{ ledger: Ledger; registers: RegisterLoad; changes: string }> => {
  const token = await createToken(target.databaseUrl, `torture-${target.label}`);
  const rand = seeded(seed);
  // chosen ids count up from 1 below a fence plant at 10^9; server-assigned ids go above the fence
  // A fifth of the steps patch a present plant (JSON Merge Patch of its name and tag).
  const ledger = new Ledger(1, { patchShare: 0.2 });
  let server: ServerProcess = await startServer({ DATABASE_URL: target.databaseUrl, LOG_LEVEL: 'warn' });
  const registers = new RegisterLoad({
    targets: [server.port],
    token,
    clients: 6,
    ...BESIDE_LEDGER,
    sharedStore: true,
    seed,
  });
  // A watcher of the change feed on each round's server, resumed on the next from where it was.
  const watches: ChangeWatch[] = [];
  let watched = 0;
  let changes = '';
  try {
    const setup = new http.Agent({ keepAlive: false });
    await ledger.fence(setup, server.port, token, 1_000_000_000);
    setup.destroy();
    for (let round = 1; round <= rounds; round++) {
      const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
      const killAfterMs = 100 + Math.floor(rand() * 1_400);
      const started = Date.now();
      let stop = false;
      const victim = server;
      const stopRegisters = new AbortController();
      registers.setTargets([victim.port]);
      const watch = new ChangeWatch(watches.at(-1)?.position ?? 0);
      await watch.follow(victim.port, token);
      watches.push(watch);
      const registerRun = registers.run({ signal: stopRegisters.signal, durationMs: MAX_ROUND_MS });
      const killer = setTimeout(() => {
        watch.serverDown();
        victim.child.kill('SIGKILL');
        stop = true;
        stopRegisters.abort();
      }, killAfterMs);
      const worker = async (): Promise<void> => {
        while (!stop && ledger.tally.requests < MAX_REQUESTS_PER_ROUND * round && Date.now() - started < MAX_ROUND_MS) {
          await ledger.step(agent, victim.port, token, `r${round}`, rand);
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
      clearTimeout(killer);
      watch.serverDown();
      victim.child.kill('SIGKILL'); // in case the load ended first (bounded loop)
      stopRegisters.abort();
      await registerRun;
      const { signal } = await victim.exited;
      watch.stop();
      agent.destroy();
      expect(signal, `round ${round}: the server died of something other than our SIGKILL:\n${victim.output()}`).toBe(
        'SIGKILL',
      );
      expect(ledger.violations, `round ${round} (seed ${seed}): responses that break the contract`).toEqual([]);
      expect(registers.violations, `round ${round} (seed ${seed}): register answers that break the contract`).toEqual(
        [],
      );

      await target.settled();
      const settledAt = performance.now();
      const snapshot = await target.read();
      expect(snapshot.integrity, `round ${round}: integrity_check`).toBe('ok');
      const ledgerPlants = withoutRegisters(snapshot.plants);
      const problems = ledger.reconcile(ledgerPlants);
      // the writes without an answer (the ledger's and the registers') could land only until the
      // store settled; then it was read
      ledger.recorder.closeUnknown(settledAt);
      registers.closeUnknown(settledAt);
      ledger.recorder.observe(ledgerPlants, settledAt, performance.now());
      expect(
        problems,
        `round ${round} (seed ${seed}, killed after ${killAfterMs} ms): the store after SIGKILL`,
      ).toEqual([]);

      // restart on the same store: the server sees exactly what the file holds
      server = await startServer({ DATABASE_URL: target.databaseUrl, LOG_LEVEL: 'warn' });
      const listed = withoutRegisters(await listAll(server.url, token));
      const expected = new Map([...ledger.present].map(([id, p]) => [id, { id, name: p.name, tag: p.tag }]));
      expect(listed, `round ${round}: GET /plants after the restart`).toEqual(expected);
    }
    // The registers' last state, read through the last server: the end of their history.
    registers.setTargets([server.port]);
    await registers.settle();
    // The change log across every kill: numbered 1, 2, 3… with none reused, its replay is the
    // store, and every change a watcher read before a kill is still there with the same bytes.
    const log = await readLog(server.url, token);
    const { plants } = await target.read();
    // The last watcher follows the last server from where the last killed one stopped, to the end.
    const last = new ChangeWatch(watches.at(-1)?.position ?? 0);
    await last.follow(server.port, token);
    watches.push(last);
    await until(
      'the last watcher at the end of the log',
      () => Promise.resolve(last.position >= log.length),
      CATCH_UP_MS,
      {
        everyMs: 20,
      },
    ).catch(() => undefined); // a watcher short of the end fails the delivery check below, with the changes it lacks
    last.stop();
    for (const watch of watches) watched += watch.seen.size;
    expect(
      logProblems(
        log,
        plants,
        watches.map((w) => w.seen),
      ),
      `the change log (seed ${seed})`,
    ).toEqual([]);
    // Refusals first: a stream that never opened explains the changes its watcher lacks.
    expect(
      watches.flatMap((w, i) => refusalProblems(w).map((p) => `watcher ${i + 1}: ${p}`)),
      `streams refused other than while the server was down (seed ${seed})`,
    ).toEqual([]);
    // Delivery: the watchers, one after another, read every change of the log once and in order.
    expect(
      deliveryProblems(
        log,
        watches.flatMap((w) => w.order),
      ),
      `the changes the watchers read, against the log (seed ${seed})`,
    ).toEqual([]);
    const refused = watches.reduce((n, w) => n + w.failures.length, 0);
    changes = `change log: ${log.length} changes numbered 1…${log.length}, its replay is the store; ${watches.length} watchers read ${watched} of them live across the kills and the last restart, each once, in order and as the log holds it (${watches.reduce((n, w) => n + w.resumes, 0)} streams resumed, ${refused} refused, all while the server was down or within ${MAX_REFUSALS_WHILE_UP} per watcher)`;
  } finally {
    registers.close();
    await server.stop('SIGKILL');
  }
  return { ledger, registers, changes };
};

const summary = (
  label: string,
  rounds: number,
  { ledger, registers, changes }: { ledger: Ledger; registers: RegisterLoad; changes: string },
  verdict: Verdict,
  registerVerdict: Verdict,
): string =>
  `crash-durability ${label}: ${rounds}/${rounds} rounds survived SIGKILL, ${ledger.tally.requests} requests, ` +
  `acknowledged ${ledger.tally.creates} creates + ${ledger.tally.patches} patches + ${ledger.tally.deletes} deletes, ${ledger.tally.unknown} unknown, ` +
  `${ledger.tally.conflicts} conflicts, ${ledger.present.size} plants at the end, lost ${ledger.tally.lost}; ` +
  `history: ${formatVerdict(describeHistory(ledger.recorder.history), verdict)}; ` +
  `registers (${registers.tally.requests} requests across the kills): ${formatVerdict(describeHistory(registers.history), registerVerdict)}; ${changes}`;

/** Every round's writes and store reads, each id a register across the kills: one order must explain them. */
const expectLinearizable = (
  label: string,
  history: Parameters<typeof describeHistory>[0],
  verdict: Verdict,
  seed: number,
): void => {
  const detail = verdict.ok === false ? `\n${verdict.explanation}\n${verdict.operations.join('\n')}` : '';
  const figures = formatVerdict(describeHistory(history), verdict);
  expect(verdict.ok, `${label} (seed ${seed}): ${figures}${detail}`).toBe(true);
};

const seedOf = (): number => Number(process.env['TORTURE_SEED'] ?? Date.now() % 1_000_000_007);

describe('crash durability on SQLite (SIGKILL under mixed load)', () => {
  let dir: { path: string; remove(): Promise<void> };
  beforeAll(async () => {
    dir = await tempDir('crash');
  });
  afterAll(async () => {
    await dir?.remove();
  });

  it(`survives ${knobs.rounds} SIGKILLs with nothing lost and nothing invented`, async () => {
    const file = join(dir.path, 'plant-store.db');
    const seed = seedOf();
    const target: Target = {
      label: 'sqlite',
      databaseUrl: `sqlite:${file}`,
      read: async () => readSqlite(file),
      settled: async () => undefined,
    };
    const loads = await crashRounds(target, knobs.rounds, seed);
    const { ledger, registers } = loads;
    const verdict = checkHistory(ledger.recorder.history);
    const registerVerdict = checkHistory(registers.history);
    console.log(`${summary('sqlite', knobs.rounds, loads, verdict, registerVerdict)} (seed ${seed})`);
    expect(ledger.tally.lost).toBe(0);
    expectLinearizable('sqlite', ledger.recorder.history, verdict, seed);
    expectLinearizable('sqlite registers', registers.history, registerVerdict, seed);
    // the rounds really exercised the store: acknowledged writes and unknown outcomes both happened
    expect(ledger.tally.creates).toBeGreaterThan(knobs.rounds * 10);
    expect(ledger.tally.deletes).toBeGreaterThan(0);
    expect(ledger.tally.patches).toBeGreaterThan(0);
  });
});

describePostgres('crash durability on PostgreSQL (SIGKILL under mixed load)', () => {
  let database: FreshPostgres;
  beforeAll(async () => {
    database = await freshPostgresUrl();
  });
  afterAll(async () => {
    await database?.drop();
  });

  const rounds = Math.max(2, Math.ceil(knobs.rounds / 4));
  it(`survives ${rounds} SIGKILLs with nothing lost and nothing invented`, async () => {
    const seed = seedOf();
    const target: Target = {
      label: 'postgres',
      databaseUrl: database.url,
      read: async () => ({ plants: await readPostgres(database.url), integrity: 'ok' }),
      settled: () => backendsGone(database.schema),
    };
    const loads = await crashRounds(target, rounds, seed);
    const { ledger, registers } = loads;
    const verdict = checkHistory(ledger.recorder.history);
    const registerVerdict = checkHistory(registers.history);
    console.log(`${summary('postgres', rounds, loads, verdict, registerVerdict)} (seed ${seed})`);
    expect(ledger.tally.lost).toBe(0);
    expectLinearizable('postgres', ledger.recorder.history, verdict, seed);
    expectLinearizable('postgres registers', registers.history, registerVerdict, seed);
    expect(ledger.tally.creates).toBeGreaterThan(rounds * 10);
  });
});
