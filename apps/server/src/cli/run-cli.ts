import * as E from 'fp-ts/lib/Either.js';
import pino from 'pino';
import { openStore } from '../adapters/open-store.js';
import { decodeConfig, type Config } from '../config.js';
import { createLogger, type Logger } from '../logger.js';
import type { Store } from '../ports/store.js';

/** A wrong command line: exit 2, the message and a pointer to --help on stderr. */
export class UsageError extends Error {}

/** Refused for a reason the operator can act on: exit 1, the reason alone on stderr. */
export class Refused extends Error {}

/** What a command that opens its stores itself runs with: its own arguments and the decoded configuration. */
export interface ToolContext {
  /** The arguments after the command's name. */
  readonly args: string[];
  readonly config: Config;
  /** Warnings and worse, on stderr. */
  readonly logger: Logger;
}

/** What a command runs with: its context and the store DATABASE_URL names, open. */
export interface CliContext extends ToolContext {
  readonly store: Store;
}

/** A command: resolves to its exit code (undefined: 0), or throws UsageError, Refused or any Error (exit 1). */
export type CliCommand<C = CliContext> = (context: C) => Promise<number | void>;

export interface Cli<C = CliContext> {
  /** The program's name, which starts every error line ("plant-store-tokens: …"). */
  readonly name: string;
  /** Printed on stdout for --help (exit 0) and for no command at all (exit 2). */
  readonly help: string;
  readonly commands: Readonly<Record<string, CliCommand<C>>>;
  /** Lines for stderr once the configuration is decoded, before the store opens (say, a setting that makes the command moot). */
  readonly notes?: (config: Config) => readonly string[];
}

/** `result`'s value; a Left (a store failure) becomes an Error "could not <what>" with its cause. */
export const failOnLeft = <A>(result: E.Either<{ readonly cause: unknown }, A>, what: string): A => {
  if (E.isLeft(result)) throw new Error(`could not ${what}`, { cause: result.left.cause });
  return result.right;
};

const isUsageError = (err: unknown): boolean =>
  err instanceof UsageError ||
  ['ERR_PARSE_ARGS_UNKNOWN_OPTION', 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE'].includes(
    String((err as { code?: unknown }).code),
  );

const run = async (cli: Cli<ToolContext>, argv: readonly string[]): Promise<number> => {
  const [command, ...args] = argv;
  if (
    command === undefined ||
    command === '--help' ||
    command === '-h' ||
    command === 'help' ||
    args.includes('--help')
  ) {
    process.stdout.write(cli.help);
    return command === undefined ? 2 : 0;
  }
  const runCommand = Object.hasOwn(cli.commands, command) ? cli.commands[command] : undefined;
  if (runCommand === undefined) throw new UsageError(`unknown command ${command}`);
  const decoded = decodeConfig(process.env);
  if (E.isLeft(decoded)) {
    process.stderr.write(`${cli.name}: ${decoded.left}\n`);
    return 1;
  }
  const config = decoded.right;
  for (const note of cli.notes?.(config) ?? []) process.stderr.write(`${note}\n`);
  const logger = createLogger({ level: 'warn', destination: pino.destination({ dest: 2, sync: true }) });
  return (await runCommand({ args, config, logger })) ?? 0;
};

/** The command with the store DATABASE_URL names opened before it runs and closed after. */
const withStore =
  (command: CliCommand): CliCommand<ToolContext> =>
  async (context) => {
    // SQLite's own FULL: the commit is on disk before COMMIT returns, so a running server (which
    // does not hold its reads back for another process's commits) never sees it earlier.
    const store = await openStore(context.config.storeLocation, {
      synchronous: context.config.sqliteSynchronous,
      syncOffEventLoop: false,
      logger: context.logger,
      ...(context.config.postgres.directUrl === undefined ? {} : { directUrl: context.config.postgres.directUrl }),
    });
    try {
      return await command({ ...context, store });
    } finally {
      await store.close();
    }
  };

/**
 * The scaffold every operator CLI runs on: `<name> <command> [arguments]`. Prints the help, decodes
 * the configuration, opens the store DATABASE_URL names, runs the command and closes the store;
 * then sets the exit code: 0 done, 1 failed or refused, 2 usage error, each failure one line on
 * stderr. See docs/reference/cli.md.
 */
export const runCli = (cli: Cli, argv: readonly string[] = process.argv.slice(2)): Promise<void> =>
  runToolCli(
    { ...cli, commands: Object.fromEntries(Object.entries(cli.commands).map(([name, c]) => [name, withStore(c)])) },
    argv,
  );

/** runCli for commands that open what they need themselves (ToolContext: no store). */
export const runToolCli = async (
  cli: Cli<ToolContext>,
  argv: readonly string[] = process.argv.slice(2),
): Promise<void> => {
  try {
    process.exitCode = await run(cli, argv);
  } catch (err) {
    if (isUsageError(err)) {
      process.stderr.write(`${cli.name}: ${(err as Error).message}\nRun ${cli.name} --help for usage.\n`);
      process.exitCode = 2;
    } else if (err instanceof Refused) {
      process.stderr.write(`${cli.name}: ${err.message}\n`);
      process.exitCode = 1;
    } else {
      const cause = (err as { cause?: unknown }).cause;
      process.stderr.write(
        `${cli.name}: ${(err as Error).message}${cause instanceof Error ? `: ${cause.message}` : ''}\n`,
      );
      process.exitCode = 1;
    }
  }
};
