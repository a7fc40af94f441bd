import { parseArgs } from 'node:util';
import { IdempotencyKey, ListCursorFromString, PageLimitFromString, PlantIdFromPath, type Plant } from '@plant-store/domain';
import type * as t from 'io-ts';
import { AbortError, ConflictError, PlantStoreError, ValidationError } from './client-error.js';
import { createPlantStoreClient, type PlantListPage, type PlantStoreClient } from './create-plant-store-client.js';
import { packageVersion } from './package-version.js';

export interface CliIo {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly stdout: { write(chunk: string): unknown };
  readonly stderr: { write(chunk: string): unknown };
  /** Aborts the running command (the bin wires it to SIGINT). */
  readonly signal?: AbortSignal;
}

/** Exit codes: 0 success, 1 the request failed (server or network), 2 usage, 130 interrupted. */
export const EXIT = { ok: 0, failed: 1, usage: 2, interrupted: 130 } as const;

const DEFAULT_URL = 'http://127.0.0.1:3000';

const globalOptions = {
  url: { type: 'string' },
  token: { type: 'string' },
  timeout: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'V' },
} as const;

const commandOptions = {
  create: { name: { type: 'string' }, tag: { type: 'string' }, id: { type: 'string' }, 'idempotency-key': { type: 'string' } },
  delete: {},
  get: {},
  list: { limit: { type: 'string' }, after: { type: 'string' }, all: { type: 'boolean' } },
} as const;

type Command = keyof typeof commandOptions;
const isCommand = (s: string): s is Command => Object.hasOwn(commandOptions, s);

const GLOBAL_HELP = `Options for every command:
  --url URL        the server (env PLANT_STORE_URL, default ${DEFAULT_URL})
  --token TOKEN    the bearer token (env PLANT_STORE_TOKEN; prefer the variable, flags show in ps)
  --timeout MS     per-request timeout in milliseconds (default 30000)
  --json           print one JSON document on stdout instead of text
  -h, --help       show help`;

const HELP: Record<Command | 'top', string> = {
  top: `Usage: plant-store <command> [options]

Commands:
  create --name NAME [--tag TAG] [--id ID]   add a plant (safe to retry: see create --help)
  get <id>                                   show one plant
  delete <id>                                delete a plant
  list [--limit N] [--after ID] [--all]      list plants in id order

${GLOBAL_HELP}
  -V, --version    print the version

Exit codes: 0 success, 1 the request failed (the server's message is on stderr), 2 usage error.
Run "plant-store <command> --help" for a command's details.
`,
  create: `Usage: plant-store create --name NAME [--tag TAG] [--id ID] [options]

Adds a plant and prints it with its id. Without --id the server assigns one.
Every create sends an Idempotency-Key (a fresh UUIDv7 unless you pass --idempotency-key) and
is retried with that same key after a lost connection, a timeout or a 5xx: the server
stores the plant at most once per key and answers a repeat with its first answer, which
the output marks as replayed.

  --name NAME      1–200 characters (required)
  --tag TAG        1–100 characters
  --id ID          an integer from 1 to 9007199254740991
  --idempotency-key KEY
                   1–255 characters from A–Z a–z 0–9 . _ : ~ + / = -; run the same
                   create with the same key again (after a failure, from a script) and
                   the plant is still stored only once

${GLOBAL_HELP}
`,
  get: `Usage: plant-store get <id> [options]

Prints one plant. Exits 1 with "no plant with id …" when there is none.

${GLOBAL_HELP}
`,
  delete: `Usage: plant-store delete <id> [options]

Deletes a plant. Exits 1 with "no plant with id …" when there is none.

${GLOBAL_HELP}
`,
  list: `Usage: plant-store list [--limit N] [--after ID] [--all] [options]

Prints plants in ascending id order, one per line: id, name and tag separated by tabs.
Without --all it prints one page and, when there are more, the command for the next page.

  --limit N        plants per page, 1–1000 (default 100)
  --after ID       start after this id (default 0: from the beginning)
  --all            follow the pages to the end (--json then prints one array)

${GLOBAL_HELP}
`,
};

class UsageError extends Error {}

const decodeArg = <A>(codec: t.Type<A, string, unknown>, name: string, value: string): A => {
  const decoded = codec.decode(value);
  if (decoded._tag === 'Left') throw new UsageError(`${name}: ${decoded.left[0]?.message ?? 'invalid value'}`);
  return decoded.right;
};

const plantLine = (plant: Plant): string => `${plant.id}\t${plant.name}\t${plant.tag ?? ''}\n`;

const describeFailure = (error: PlantStoreError): string => {
  const facts = [
    error.status === undefined ? undefined : `HTTP ${error.status}`,
    error instanceof ConflictError && error.replayed ? 'replayed' : undefined,
    error.requestId === undefined ? undefined : `request id ${error.requestId}`,
  ].filter((fact) => fact !== undefined);
  return `plant-store: ${error.message}${facts.length > 0 ? ` (${facts.join(', ')})` : ''}\n${repeatHint(error)}`;
};

/**
 * For a create that failed without a final answer (no response, a 5xx, 408, 429, or the key still
 * in progress), how to repeat it without storing the plant twice.
 */
const repeatHint = (error: PlantStoreError): string => {
  const { status, idempotencyKey } = error;
  if (idempotencyKey === undefined) return '';
  const inProgress = error instanceof ConflictError && error.retryAfterMs !== undefined;
  const unsettled = status === undefined || status >= 500 || status === 408 || status === 429 || inProgress;
  return unsettled ? `plant-store: to try again safely, repeat the create with --idempotency-key ${idempotencyKey}\n` : '';
};

/**
 * Runs the `plant-store` command line with `argv` (without node and the script) and resolves to
 * the exit code. Everything it prints goes to `io.stdout` / `io.stderr`; it never exits itself.
 */
export const runCli = async (argv: readonly string[], io: CliIo): Promise<number> => {
  const out = (text: string) => void io.stdout.write(text);
  const err = (text: string) => void io.stderr.write(text);
  const json = (value: unknown) => out(`${JSON.stringify(value, null, 2)}\n`);

  let command: Command | undefined;
  try {
    const parsed = parseArgs({
      args: [...argv],
      options: { ...globalOptions, ...commandOptions.create, ...commandOptions.list },
      allowPositionals: true,
      strict: true,
    });
    const { values, positionals } = parsed;
    if (values.version === true) {
      out(`${packageVersion()}\n`);
      return EXIT.ok;
    }
    const [name, ...args] = positionals;
    if (name === undefined) {
      if (values.help === true) {
        out(HELP.top);
        return EXIT.ok;
      }
      err(HELP.top);
      return EXIT.usage;
    }
    if (!isCommand(name)) throw new UsageError(`unknown command "${name}" (commands: ${Object.keys(commandOptions).join(', ')})`);
    command = name;
    if (values.help === true) {
      out(HELP[command]);
      return EXIT.ok;
    }
    const allowed = new Set([...Object.keys(globalOptions), ...Object.keys(commandOptions[command])]);
    const stray = Object.keys(values).find((key) => !allowed.has(key));
    if (stray !== undefined) throw new UsageError(`${command} does not take --${stray}`);

    const needsId = command === 'get' || command === 'delete';
    if (needsId && args.length !== 1) throw new UsageError(`${command} takes exactly one plant id`);
    if (!needsId && args.length > 0) throw new UsageError(`${command} takes no arguments, got "${args.join(' ')}"`);

    const token = values.token ?? io.env['PLANT_STORE_TOKEN'];
    if (token === undefined || token === '') throw new UsageError('no token: set PLANT_STORE_TOKEN or pass --token');
    const timeout = values.timeout === undefined ? undefined : Number(values.timeout);
    if (timeout !== undefined && !(Number.isSafeInteger(timeout) && timeout > 0)) {
      throw new UsageError(`--timeout: expected a positive number of milliseconds, got "${values.timeout}"`);
    }
    let client: PlantStoreClient;
    try {
      client = createPlantStoreClient({
        baseUrl: values.url ?? io.env['PLANT_STORE_URL'] ?? DEFAULT_URL,
        token,
        ...(timeout === undefined ? {} : { timeout }),
        ...(io.signal === undefined ? {} : { signal: io.signal }),
      });
    } catch (error) {
      throw new UsageError(error instanceof Error ? error.message : String(error));
    }

    switch (command) {
      case 'create': {
        if (values.name === undefined) throw new UsageError('create needs --name');
        const id = values.id === undefined ? undefined : decodeArg(PlantIdFromPath, '--id', values.id);
        const key = values['idempotency-key'];
        const idempotencyKey = key === undefined ? undefined : decodeArg(IdempotencyKey, '--idempotency-key', key);
        const plant = await client.plants.create(
          {
            name: values.name,
            ...(values.tag === undefined ? {} : { tag: values.tag }),
            ...(id === undefined ? {} : { id }),
          },
          idempotencyKey === undefined ? {} : { idempotencyKey },
        );
        if (values.json === true) json({ ...plant, replayed: plant.replayed });
        else {
          const replay = plant.replayed ? ' (replayed: an earlier request with this idempotency key created it)' : '';
          out(`Created plant ${plant.id}: ${plant.name}${plant.tag === undefined ? '' : ` [${plant.tag}]`}${replay}\n`);
        }
        return EXIT.ok;
      }
      case 'get': {
        const plant = await client.plants.get(decodeArg(PlantIdFromPath, 'id', args[0] as string));
        if (values.json === true) json(plant);
        else out(`id    ${plant.id}\nname  ${plant.name}\n${plant.tag === undefined ? '' : `tag   ${plant.tag}\n`}`);
        return EXIT.ok;
      }
      case 'delete': {
        const id = decodeArg(PlantIdFromPath, 'id', args[0] as string);
        await client.plants.delete(id);
        if (values.json === true) json({ deleted: id });
        else out(`Deleted plant ${id}\n`);
        return EXIT.ok;
      }
      case 'list': {
        const limit = values.limit === undefined ? undefined : decodeArg(PageLimitFromString, '--limit', values.limit);
        const after = values.after === undefined ? undefined : decodeArg(ListCursorFromString, '--after', values.after);
        if (values.all === true) {
          if (after !== undefined) throw new UsageError('list --all starts at the beginning; drop --after');
          const plants: Plant[] = [];
          if (values.json !== true) out('ID\tNAME\tTAG\n');
          for await (const plant of client.plants.all(limit === undefined ? {} : { limit })) {
            if (values.json === true) plants.push(plant);
            else out(plantLine(plant));
          }
          if (values.json === true) json(plants);
          return EXIT.ok;
        }
        const page: PlantListPage = await client.plants.list({
          ...(limit === undefined ? {} : { limit }),
          ...(after === undefined ? {} : { after }),
        });
        if (values.json === true) {
          json(page);
          return EXIT.ok;
        }
        out('ID\tNAME\tTAG\n');
        for (const plant of page.plants) out(plantLine(plant));
        if (page.next !== undefined) err(`more: plant-store list --limit ${page.next.limit} --after ${page.next.after}\n`);
        return EXIT.ok;
      }
    }
  } catch (error) {
    if (error instanceof UsageError || (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS'))) {
      err(`plant-store: ${error.message}\n`);
      err(command === undefined ? 'Run "plant-store --help" for usage.\n' : `Run "plant-store ${command} --help" for usage.\n`);
      return EXIT.usage;
    }
    if (error instanceof ValidationError) {
      err(`plant-store: ${error.message}\n`);
      return EXIT.usage;
    }
    if (error instanceof AbortError) {
      err('plant-store: interrupted\n');
      return EXIT.interrupted;
    }
    if (error instanceof PlantStoreError) {
      err(describeFailure(error));
      return EXIT.failed;
    }
    throw error;
  }
};
