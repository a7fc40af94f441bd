import { parseArgs } from 'node:util';
import {
  ChangePositionFromString,
  IdempotencyKey,
  ListCursorFromString,
  PageCursorFromString,
  PlantIdFromPath,
  type Plant,
  type PlantId,
} from '@plant-store/domain';
import { exportPlants, type LineSink } from './cli-export.js';
import { DEFAULT_URL, HELP } from './cli-help.js';
import { concurrencyArg, decodeArg, digestArg, listQueryArgs, UsageError } from './cli-args.js';
import { importFile, summaryLine } from './cli-import.js';
import { watchChanges } from './cli-watch.js';
import { joinDescendingSorts, nextCommand } from './cli-words.js';
import {
  AbortError,
  ConflictError,
  PlantStoreError,
  PreconditionFailedError,
  ValidationError,
} from './client-error.js';
import { createPlantStoreClient, type PlantStoreClient } from './create-plant-store-client.js';
import { ETagCondition } from './etag.js';
import { packageVersion } from './package-version.js';
import type { UpdatePlantInput } from './plants-api.js';
import type { ProgressStream } from './progress.js';

export interface CliIo {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** `once('drain')` lets export wait when a pipe is full instead of buffering every plant. */
  readonly stdout: LineSink;
  /** The progress bars of export and import appear only when `isTTY` is true. */
  readonly stderr: ProgressStream;
  /** Aborts the running command (the bin wires it to SIGINT). */
  readonly signal?: AbortSignal;
}

/** Exit codes: 0 success, 1 the request failed (server or network), 2 usage, 130 interrupted. */
export const EXIT = { ok: 0, failed: 1, usage: 2, interrupted: 130 } as const;

const globalOptions = {
  url: { type: 'string' },
  token: { type: 'string' },
  timeout: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'V' },
} as const;

const commandOptions = {
  create: {
    name: { type: 'string' },
    tag: { type: 'string' },
    id: { type: 'string' },
    'idempotency-key': { type: 'string' },
  },
  delete: { 'if-match': { type: 'string' } },
  get: {},
  update: {
    name: { type: 'string' },
    tag: { type: 'string' },
    'no-tag': { type: 'boolean' },
    'if-match': { type: 'string' },
  },
  put: {
    name: { type: 'string' },
    tag: { type: 'string' },
    'if-match': { type: 'string' },
    'if-none-match': { type: 'boolean' },
  },
  list: {
    limit: { type: 'string' },
    after: { type: 'string' },
    tag: { type: 'string' },
    q: { type: 'string' },
    sort: { type: 'string' },
    cursor: { type: 'string' },
    count: { type: 'boolean' },
    all: { type: 'boolean' },
  },
  export: {
    limit: { type: 'string' },
    tag: { type: 'string' },
    q: { type: 'string' },
    sort: { type: 'string' },
  },
  import: { concurrency: { type: 'string' } },
  watch: { since: { type: 'string' }, tag: { type: 'string' } },
} as const;

type Command = keyof typeof commandOptions;
const isCommand = (s: string): s is Command => Object.hasOwn(commandOptions, s);
const takesId: ReadonlySet<Command> = new Set(['get', 'delete', 'update', 'put']);

const plantLine = (plant: Plant): string => `${plant.id}\t${plant.name}\t${plant.tag ?? ''}\n`;
const tagSuffix = (plant: Plant): string => (plant.tag === undefined ? '' : ` [${plant.tag}]`);

/** `--if-match`, with a hint when the shell ate the ETag's double quotes. */
const ifMatchArg = (value: string | undefined): string | undefined => {
  if (value === undefined || ETagCondition.is(value)) return value;
  if (ETagCondition.is(`"${value}"`)) {
    throw new UsageError(
      `--if-match: an ETag keeps its double quotes; the shell removed them: write --if-match '"${value}"'`,
    );
  }
  return decodeArg(ETagCondition, '--if-match', value);
};

/** What a conditional command sent, to explain a 412 in one line. */
type Precondition =
  | { readonly id: PlantId; readonly ifMatch: string; readonly verb: 'updated' | 'deleted' | 'replaced' }
  | { readonly id: PlantId; readonly ifNoneMatch: '*' };

const describePreconditionFailed = (error: PreconditionFailedError, precondition: Precondition): string => {
  const { id } = precondition;
  const retried =
    error.attempts > 1
      ? ' (this was a retry: the first attempt, whose answer was lost, may have made that change)'
      : '';
  const facts = ['HTTP 412', ...(error.requestId === undefined ? [] : [`request id ${error.requestId}`])].join(', ');
  const what =
    'ifNoneMatch' in precondition
      ? `plant ${id} exists already and --if-none-match only creates, so nothing was changed`
      : precondition.verb === 'replaced'
        ? `plant ${id} does not have the ETag ${precondition.ifMatch} (it has changed, or does not exist), so nothing was replaced`
        : `plant ${id} has changed: its ETag is no longer ${precondition.ifMatch}, so nothing was ${precondition.verb}`;
  return `plant-store: ${what}${retried}; run "plant-store get ${id}" to see it now (${facts})\n`;
};

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
  return unsettled
    ? `plant-store: to try again safely, repeat the create with --idempotency-key ${idempotencyKey}\n`
    : '';
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
  let precondition: Precondition | undefined;
  try {
    const parsed = parseArgs({
      args: joinDescendingSorts(argv),
      options: {
        ...globalOptions,
        ...commandOptions.create,
        ...commandOptions.update,
        ...commandOptions.put,
        ...commandOptions.list,
        ...commandOptions.import,
        ...commandOptions.watch,
      },
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
    if (!isCommand(name))
      throw new UsageError(`unknown command "${name}" (commands: ${Object.keys(commandOptions).join(', ')})`);
    command = name;
    if (values.help === true) {
      out(HELP[command]);
      return EXIT.ok;
    }
    const allowed = new Set([...Object.keys(globalOptions), ...Object.keys(commandOptions[command])]);
    const stray = Object.keys(values).find((key) => !allowed.has(key));
    if (stray !== undefined) throw new UsageError(`${command} does not take --${stray}`);

    if (takesId.has(command)) {
      if (args.length !== 1) throw new UsageError(`${command} takes exactly one plant id`);
    } else if (command === 'import') {
      if (args.length !== 1) throw new UsageError('import takes exactly one file (JSON Lines)');
    } else if (args.length > 0) throw new UsageError(`${command} takes no arguments, got "${args.join(' ')}"`);

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
          out(`Created plant ${plant.id}: ${plant.name}${tagSuffix(plant)}${replay}\n`);
        }
        return EXIT.ok;
      }
      case 'get': {
        const plant = await client.plants.get(decodeArg(PlantIdFromPath, 'id', args[0] as string));
        if (values.json === true) json(plant);
        else {
          const tag = plant.tag === undefined ? '' : `tag   ${plant.tag}\n`;
          out(
            `id    ${plant.id}\nname  ${plant.name}\n${tag}${plant.etag === undefined ? '' : `etag  ${plant.etag}\n`}`,
          );
        }
        return EXIT.ok;
      }
      case 'update': {
        const id = decodeArg(PlantIdFromPath, 'id', args[0] as string);
        const removeTag = values['no-tag'] === true;
        if (values.tag !== undefined && removeTag) throw new UsageError('update takes --tag or --no-tag, not both');
        const patch: UpdatePlantInput = {
          ...(values.name === undefined ? {} : { name: values.name }),
          ...(values.tag !== undefined ? { tag: values.tag } : removeTag ? { tag: null } : {}),
        };
        if (Object.keys(patch).length === 0) throw new UsageError('update needs --name, --tag or --no-tag');
        const ifMatch = ifMatchArg(values['if-match']);
        if (ifMatch !== undefined) precondition = { id, ifMatch, verb: 'updated' };
        const plant = await client.plants.update(id, patch, ifMatch === undefined ? {} : { ifMatch });
        if (values.json === true) json({ ...plant, etag: plant.etag });
        else out(`Updated plant ${plant.id}: ${plant.name}${tagSuffix(plant)} (ETag ${plant.etag})\n`);
        return EXIT.ok;
      }
      case 'put': {
        const id = decodeArg(PlantIdFromPath, 'id', args[0] as string);
        if (values.name === undefined)
          throw new UsageError('put needs --name (the whole plant: a tag you leave out is removed)');
        const onlyCreate = values['if-none-match'] === true;
        const ifMatch = ifMatchArg(values['if-match']);
        if (ifMatch !== undefined && onlyCreate)
          throw new UsageError('put takes --if-match or --if-none-match, not both');
        if (ifMatch !== undefined) precondition = { id, ifMatch, verb: 'replaced' };
        if (onlyCreate) precondition = { id, ifNoneMatch: '*' };
        const plant = await client.plants.put(
          id,
          { name: values.name, ...(values.tag === undefined ? {} : { tag: values.tag }) },
          ifMatch !== undefined ? { ifMatch } : onlyCreate ? { ifNoneMatch: '*' } : {},
        );
        if (values.json === true) json({ ...plant, etag: plant.etag, created: plant.created });
        else
          out(
            `${plant.created ? 'Created' : 'Replaced'} plant ${plant.id}: ${plant.name}${tagSuffix(plant)} (ETag ${plant.etag})\n`,
          );
        return EXIT.ok;
      }
      case 'delete': {
        const id = decodeArg(PlantIdFromPath, 'id', args[0] as string);
        const ifMatch = ifMatchArg(values['if-match']);
        if (ifMatch !== undefined) precondition = { id, ifMatch, verb: 'deleted' };
        await client.plants.delete(id, ifMatch === undefined ? {} : { ifMatch });
        if (values.json === true) json({ deleted: id });
        else out(`Deleted plant ${id}\n`);
        return EXIT.ok;
      }
      case 'list': {
        const query = listQueryArgs(values);
        const after = values.after === undefined ? undefined : decodeArg(ListCursorFromString, '--after', values.after);
        const cursor =
          values.cursor === undefined ? undefined : decodeArg(PageCursorFromString, '--cursor', values.cursor);
        if (values.all === true) {
          if (after !== undefined) throw new UsageError('list --all starts at the beginning; drop --after');
          if (cursor !== undefined) throw new UsageError('list --all starts at the beginning; drop --cursor');
          if (values.count === true) {
            throw new UsageError('list --all prints every plant; --count goes with one page (list --count --limit 1)');
          }
          const plants: Plant[] = [];
          if (values.json !== true) out('ID\tNAME\tTAG\n');
          for await (const plant of client.plants.all(query)) {
            if (values.json === true) plants.push(plant);
            else out(plantLine(plant));
          }
          if (values.json === true) json(plants);
          return EXIT.ok;
        }
        const page = await client.plants.list(
          {
            ...query,
            ...(after === undefined ? {} : { after }),
            ...(cursor === undefined ? {} : { cursor }),
          },
          { count: values.count === true },
        );
        if (values.json === true) {
          json(page);
          return EXIT.ok;
        }
        out('ID\tNAME\tTAG\n');
        for (const plant of page.plants) out(plantLine(plant));
        if (page.total !== undefined) err(`total: ${page.total}\n`);
        if (page.next !== undefined) err(`more: ${nextCommand(page.next)}\n`);
        return EXIT.ok;
      }
      case 'export': {
        // The lines are JSON already; --json changes nothing.
        await exportPlants(client, listQueryArgs(values), io);
        return EXIT.ok;
      }
      case 'import': {
        const concurrency = concurrencyArg(values.concurrency);
        const path = args[0] as string;
        const digest = await digestArg(path);
        const summary = await importFile(client, path, digest, { concurrency, signal: io.signal }, io.stderr);
        if (values.json === true) json(summary);
        else err(summaryLine(summary));
        if (summary.interrupted) {
          err(
            'plant-store: interrupted; run the same import again to finish it: the lines already sent are replayed, not created twice\n',
          );
          return EXIT.interrupted;
        }
        return summary.failed > 0 ? EXIT.failed : EXIT.ok;
      }
      case 'watch': {
        const since =
          values.since === undefined ? undefined : decodeArg(ChangePositionFromString, '--since', values.since);
        const end = await watchChanges(client, { since, tag: values.tag, json: values.json === true }, io);
        return end === 'expired' ? EXIT.failed : EXIT.interrupted;
      }
    }
  } catch (error) {
    if (
      error instanceof UsageError ||
      (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS'))
    ) {
      err(`plant-store: ${error.message}\n`);
      err(
        command === undefined
          ? 'Run "plant-store --help" for usage.\n'
          : `Run "plant-store ${command} --help" for usage.\n`,
      );
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
    if (error instanceof PreconditionFailedError && precondition !== undefined) {
      err(describePreconditionFailed(error, precondition));
      return EXIT.failed;
    }
    if (error instanceof PlantStoreError) {
      err(describeFailure(error));
      return EXIT.failed;
    }
    throw error;
  }
};
