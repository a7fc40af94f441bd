import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Refused, runCli, UsageError, type Cli, type CliContext } from './run-cli.js';

let stdout = '';
let stderr = '';
beforeEach(() => {
  stdout = '';
  stderr = '';
  vi.spyOn(process.stdout, 'write').mockImplementation(
    (chunk: string | Uint8Array) => ((stdout += String(chunk)), true),
  );
  vi.spyOn(process.stderr, 'write').mockImplementation(
    (chunk: string | Uint8Array) => ((stderr += String(chunk)), true),
  );
  vi.stubEnv('DATABASE_URL', 'sqlite::memory:');
  process.exitCode = undefined;
});
afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
  process.exitCode = undefined;
});

const cli = (command: (context: CliContext) => Promise<number | void>): Cli => ({
  name: 'plant-store-test',
  help: 'usage: plant-store-test run\n',
  commands: { run: command },
});

describe('runCli', () => {
  it('prints the help: exit 0 when asked, 2 without a command', async () => {
    await runCli(
      cli(async () => undefined),
      ['--help'],
    );
    expect([process.exitCode, stdout]).toEqual([0, 'usage: plant-store-test run\n']);
    await runCli(
      cli(async () => undefined),
      [],
    );
    expect(process.exitCode).toBe(2);
  });

  it('refuses an unknown command with exit 2 and a pointer to --help', async () => {
    await runCli(
      cli(async () => undefined),
      ['walk'],
    );
    expect([process.exitCode, stderr]).toEqual([
      2,
      'plant-store-test: unknown command walk\nRun plant-store-test --help for usage.\n',
    ]);
  });

  it('runs the command with its arguments and the open store, and takes its exit code', async () => {
    let seen: readonly string[] = [];
    await runCli(
      cli(async ({ args, store, config }) => {
        seen = [...args, config.storeLocation.kind];
        expect(await store.plants.ping()()).toEqual({ _tag: 'Right', right: undefined });
        return 3;
      }),
      ['run', '--x', 'y'],
    );
    expect([process.exitCode, seen]).toEqual([3, ['--x', 'y', 'sqlite']]);
  });

  it('says a bad configuration in one line, exit 1', async () => {
    vi.stubEnv('DATABASE_URL', 'mysql://x');
    await runCli(
      cli(async () => undefined),
      ['run'],
    );
    expect(process.exitCode).toBe(1);
    expect(stderr).toMatch(/^plant-store-test: invalid configuration: DATABASE_URL expects [^\n]*\n$/);
  });

  it.each([
    [new UsageError('run needs --x'), 2, 'plant-store-test: run needs --x\nRun plant-store-test --help for usage.\n'],
    [new Refused('no endpoint ep_1'), 1, 'plant-store-test: no endpoint ep_1\n'],
    [
      new Error('could not list', { cause: new Error('disk I/O error') }),
      1,
      'plant-store-test: could not list: disk I/O error\n',
    ],
  ])('turns %s into exit %i and one line', async (err, code, line) => {
    await runCli(
      cli(() => Promise.reject(err)),
      ['run'],
    );
    expect([process.exitCode, stderr]).toEqual([code, line]);
  });
});
