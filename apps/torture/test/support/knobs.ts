/**
 * The suite's size knobs. The defaults fit the CI bound (≤ 10 minutes for the whole suite on a
 * 2-core machine); raise them for longer runs:
 * - TORTURE_ROUNDS: crash rounds on SQLite (PostgreSQL and the cross-instance races scale from it);
 * - TORTURE_INPUTS: fast-check runs per hostile-input property and random tokens in the auth suite;
 * - TORTURE_SECONDS: seconds of steady load before the SIGTERM in the shutdown suite;
 * - TORTURE_SOAK_SECONDS: seconds of mixed load in the soak suite (≥ 1800 for the documented long run);
 * - TORTURE_UPGRADE_SECONDS: seconds of mixed load over the phases of the rolling upgrade round;
 * - TORTURE_WAL_SECONDS: seconds of writes without a pause in the WAL bound round.
 */
const positiveInt = (name: string, fallback: number): number => {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < 1)
    throw new Error(`${name} expects a positive integer, got ${JSON.stringify(raw)}`);
  return n;
};

export const knobs = {
  rounds: positiveInt('TORTURE_ROUNDS', 20),
  inputs: positiveInt('TORTURE_INPUTS', 500),
  seconds: positiveInt('TORTURE_SECONDS', 4),
  soakSeconds: positiveInt('TORTURE_SOAK_SECONDS', 60),
  upgradeSeconds: positiveInt('TORTURE_UPGRADE_SECONDS', 12),
  walSeconds: positiveInt('TORTURE_WAL_SECONDS', 12),
} as const;
