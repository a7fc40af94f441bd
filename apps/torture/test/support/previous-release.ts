import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { paths } from './paths.js';

/**
 * The previous release of the server, built from git into a folder of its own, for the rolling
 * upgrade round. There are no release tags, so by default it is the newest commit before the
 * latest PostgreSQL migration was added: the one release whose instances still serve while this
 * build's migrations run. It is found from the history of the migrations (one file each since
 * issue 47, all in migrations.ts before) when the suite runs, so it moves on by itself when a new
 * migration lands. `TORTURE_PREVIOUS_RELEASE=<rev>` picks another.
 *
 * The build (`git archive`, `pnpm install --frozen-lockfile --prefer-offline`, then the server and
 * what it needs) is kept under os.tmpdir() keyed by the commit: a second local run reuses it, a
 * fresh CI machine builds it once.
 */
export interface PreviousRelease {
  readonly revision: string;
  readonly short: string;
  /** How the revision was chosen, for the summary line. */
  readonly why: string;
  readonly folder: string;
  readonly serverMain: string;
  readonly tokensCli: string;
  /** The highest PostgreSQL migration the release knows, and this build's. */
  readonly migrations: { readonly previous: number; readonly current: number };
  /** Milliseconds the build took in this run; undefined when an earlier run's build was reused. */
  readonly buildMs: number | undefined;
  /** What the build took when it was made (this run or an earlier one), e.g. "install 2.6 s + build 10.7 s". */
  readonly buildNote: string;
}

const exec = promisify(execFile);
/** Every PostgreSQL migration, until issue 47 split them into MIGRATION_FOLDER. */
const MIGRATIONS = 'apps/server/src/adapters/postgres/migrations.ts';
/** One file per PostgreSQL migration, named by its version: `0008-change-log.ts`. */
const MIGRATION_FOLDER = 'apps/server/src/adapters/postgres/migrations';
const MARKER = '.plant-store-previous-release.json';
const STEP_TIMEOUT_MS = 300_000;

const git = async (...args: string[]): Promise<string> =>
  (await exec('git', ['-C', paths.root, ...args], { maxBuffer: 64 * 1024 * 1024 })).stdout.trim();

/** The highest `version:` of a migrations file's text (0 when it has none). */
const highestMigration = (text: string): number =>
  Math.max(0, ...[...text.matchAll(/^\s*version: (\d+),$/gm)].map((m) => Number(m[1])));

/** The highest version among the names of one-per-migration files (0 when there are none). */
const highestNumbered = (names: readonly string[]): number =>
  Math.max(
    0,
    ...names.map((name) => /(?:^|\/)(\d{4})-[^/]*\.ts$/.exec(name)).map((m) => (m === null ? 0 : Number(m[1]))),
  );

const highestAt = async (revision: string): Promise<number | undefined> => {
  try {
    const inFile = highestMigration(await git('show', `${revision}:${MIGRATIONS}`));
    const inFolder = highestNumbered(
      (await git('ls-tree', '--name-only', revision, `${MIGRATION_FOLDER}/`)).split('\n'),
    );
    return Math.max(inFile, inFolder);
  } catch {
    return undefined; // the file did not exist there, or the commit is not in this clone
  }
};

/** The highest PostgreSQL migration of the checked-out files. */
const highestHere = (): number =>
  Math.max(
    highestMigration(readFileSync(join(paths.root, MIGRATIONS), 'utf8')),
    existsSync(join(paths.root, MIGRATION_FOLDER))
      ? highestNumbered(readdirSync(join(paths.root, MIGRATION_FOLDER)))
      : 0,
  );

/** The revision to build and why, or the reason there is none here. */
const chooseRevision = async (): Promise<{ revision: string; why: string } | string> => {
  try {
    await git('rev-parse', '--git-dir');
  } catch {
    return `${paths.root} is not a git checkout: the previous release is built from git history`;
  }
  const shallow = (await git('rev-parse', '--is-shallow-repository')) === 'true';
  const override = process.env['TORTURE_PREVIOUS_RELEASE'];
  if (override !== undefined && override !== '') {
    try {
      return { revision: await git('rev-parse', '--verify', `${override}^{commit}`), why: 'TORTURE_PREVIOUS_RELEASE' };
    } catch {
      return `TORTURE_PREVIOUS_RELEASE=${override} is no commit of this clone${shallow ? ' (a shallow clone)' : ''}`;
    }
  }
  const current = highestHere();
  // Newest first: the commit that added migration `current` is the last whose parent has a lower one.
  for (const commit of (await git('log', '--format=%H', '--', MIGRATIONS, MIGRATION_FOLDER))
    .split('\n')
    .filter(Boolean)) {
    const here = await highestAt(commit);
    if (here === undefined || here < current) {
      // this build's latest migration is not committed yet: the checked-out commit is the release before it
      return { revision: await git('rev-parse', 'HEAD'), why: `HEAD: migration ${current} is not committed yet` };
    }
    const before = await highestAt(`${commit}^`);
    if (before !== undefined && before < current) {
      const added = commit.slice(0, 7);
      return {
        revision: await git('rev-parse', `${commit}^`),
        why: `the commit before ${added} added PostgreSQL migration ${current}`,
      };
    }
    if (before === undefined) {
      const hasParent = await git('rev-parse', '--verify', '--quiet', `${commit}^`).then(
        () => true,
        () => false,
      );
      if (!hasParent && shallow)
        return `a shallow clone: its history ends before PostgreSQL migration ${current} was added (git fetch --unshallow, or set TORTURE_PREVIOUS_RELEASE)`;
      return `PostgreSQL migration ${current} is older than ${MIGRATIONS} (${commit.slice(0, 7)}): set TORTURE_PREVIOUS_RELEASE`;
    }
  }
  return shallow
    ? `a shallow clone without the history of ${MIGRATIONS} (git fetch --unshallow, or set TORTURE_PREVIOUS_RELEASE)`
    : `${MIGRATIONS} has no history`;
};

/** The environment of the build's commands: not the test run's pnpm and vitest settings. */
const buildEnv = (): NodeJS.ProcessEnv =>
  Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !/^(npm_|pnpm_|VITEST|TURBO_HASH|NODE_OPTIONS$|TORTURE_)/i.test(key)),
  );

const run = async (command: string, args: readonly string[], cwd: string): Promise<void> => {
  try {
    await exec(command, args, { cwd, env: buildEnv(), timeout: STEP_TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024 });
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    const output = `${e.stdout ?? ''}${e.stderr ?? ''}`.split('\n').slice(-30).join('\n');
    throw new Error(`${command} ${args.join(' ')} in ${cwd} failed: ${e.message}\n${output}`);
  }
};

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/** Builds `revision` into a new folder and moves it to `folder` when done; resolves with what it took. */
const build = async (revision: string, folder: string): Promise<{ ms: number; note: string }> => {
  const staging = await mkdtemp(`${folder}-building-`);
  try {
    const started = Date.now();
    const archive = join(staging, '.source.tar');
    await git('archive', '--format=tar', '-o', archive, revision);
    await run('tar', ['-xf', archive, '-C', staging], staging);
    await rm(archive);
    const unpacked = Date.now();
    // only the server and the packages it needs; pnpm's store is warm, so nothing is downloaded
    // and better-sqlite3's built addon comes from the store's side-effects cache
    await run(
      'pnpm',
      ['install', '--frozen-lockfile', '--prefer-offline', '--filter', '@plant-store/server...'],
      staging,
    );
    const installed = Date.now();
    await run('pnpm', ['--filter', '@plant-store/server...', 'build'], staging);
    const built = Date.now();
    const ms = built - started;
    const note = `archive ${seconds(unpacked - started)} + install ${seconds(installed - unpacked)} + build ${seconds(built - installed)}`;
    await writeFile(join(staging, MARKER), JSON.stringify({ revision, ms, note, builtAt: new Date().toISOString() }));
    try {
      await rename(staging, folder);
    } catch (error) {
      // another run finished the same build first: keep theirs
      if (!existsSync(join(folder, MARKER))) throw error;
      await rm(staging, { recursive: true, force: true });
    }
    return { ms, note };
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    throw error;
  }
};

/** The previous release, built (or reused), or one line saying why there is none here. */
export const previousRelease = async (): Promise<PreviousRelease | string> => {
  const chosen = await chooseRevision();
  if (typeof chosen === 'string') return chosen;
  const { revision, why } = chosen;
  const folder = join(tmpdir(), `plant-store-previous-release-${revision}`);
  let buildMs: number | undefined;
  let buildNote: string;
  if (existsSync(join(folder, MARKER))) {
    const made = JSON.parse(await readFile(join(folder, MARKER), 'utf8')) as { ms: number; note: string };
    buildNote = `reused, built earlier in ${seconds(made.ms)}: ${made.note}`;
  } else {
    const made = await build(revision, folder);
    buildMs = made.ms;
    buildNote = `built in ${seconds(made.ms)}: ${made.note}`;
  }
  const previous = (await highestAt(revision)) ?? 0;
  const current = highestHere();
  return {
    revision,
    short: revision.slice(0, 7),
    why,
    folder,
    serverMain: join(folder, 'apps/server/dist/main.js'),
    // Through the bin, which every release since b131038 has: where it leads inside dist/ moved.
    tokensCli: join(folder, 'apps/server/bin/plant-store-tokens.js'),
    migrations: { previous, current },
    buildMs,
    buildNote,
  };
};
