import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import * as t from 'io-ts';
import { formatErrors } from '@plant-store/domain';
import { intFromString } from './config.js';

const onOff = t.keyof({ on: null, off: null, '1': null, '0': null, true: null, false: null }, 'on|off');

/** Environment knobs of `pnpm bench:data`; README.md lists them. */
const Env = t.partial({
  BENCH_DATA_PLANTS: intFromString('BENCH_DATA_PLANTS', 1000, 100_000_000),
  BENCH_DATA_TIMEOUT: intFromString('BENCH_DATA_TIMEOUT', 10, 86_400),
  BENCH_CONNECTIONS: intFromString('BENCH_CONNECTIONS', 1, 10_000),
  BENCH_WARMUP: intFromString('BENCH_WARMUP', 0, 60),
  BENCH_SECONDS: intFromString('BENCH_SECONDS', 1, 600),
  BENCH_PG_URL: t.string,
  BENCH_PIN: onOff,
  BENCH_LOG_LEVEL: t.string,
  BENCH_DATA_BACKUP_CORE: t.keyof({ load: null, any: null }, 'load|any'),
});

export interface DataBenchConfig {
  /** Plants in the store every command works on (written by `plant-store-data import`). */
  readonly plants: number;
  /** Seconds any one command may take before it is killed and the run fails. */
  readonly commandTimeoutSeconds: number;
  /** Connections of the create load during the backup. */
  readonly connections: number;
  /** Seconds of create load before the measured window that precedes the backup. */
  readonly warmupSeconds: number;
  /** The window of create load measured just before the backup starts, seconds. */
  readonly beforeSeconds: number;
  /** A PostgreSQL URL allowed to CREATE DATABASE / DROP DATABASE (the migrate target). */
  readonly pgAdminUrl: string;
  /** Pin the server and the load generator to cores 0 and 1 with taskset (when present). */
  readonly pin: boolean;
  /** LOG_LEVEL handed to the server. */
  readonly logLevel: string;
  /**
   * Where the backup runs when pinned: on the load generator's core (`load`, the server keeps
   * its own, as it would with its clients on other machines), or wherever the kernel puts it.
   */
  readonly backupCore: 'load' | 'any';
}

const truthy = (v: string | undefined, fallback: boolean): boolean =>
  v === undefined ? fallback : v === 'on' || v === '1' || v === 'true';

/** The data bench's configuration from the environment; every bad variable named on the left. */
export const parseDataConfig = (
  env: Readonly<Record<string, string | undefined>>,
): E.Either<readonly string[], DataBenchConfig> =>
  pipe(
    Env.decode(
      Object.fromEntries(Object.entries(env).filter(([k, v]) => k.startsWith('BENCH_') && v !== undefined && v !== '')),
    ),
    E.mapLeft((errors) => formatErrors(errors)),
    E.map((e) => ({
      plants: e.BENCH_DATA_PLANTS ?? 1_000_000,
      commandTimeoutSeconds: e.BENCH_DATA_TIMEOUT ?? 600,
      connections: e.BENCH_CONNECTIONS ?? 50,
      warmupSeconds: e.BENCH_WARMUP ?? 2,
      beforeSeconds: e.BENCH_SECONDS ?? 8,
      pgAdminUrl: e.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
      pin: truthy(e.BENCH_PIN, true),
      logLevel: e.BENCH_LOG_LEVEL ?? 'warn',
      backupCore: e.BENCH_DATA_BACKUP_CORE ?? 'load',
    })),
  );
