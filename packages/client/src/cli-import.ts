/** `plant-store import`: creates the plants of a JSON Lines file in batches, safe to run again after an interruption. */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { CreatePlantRequest, decodeWith, jsonLines, Plant, type IdempotencyKey } from '@plant-store/domain';
import * as E from 'fp-ts/lib/Either.js';
import { AbortError, ConflictError, NotFoundError, PlantStoreError } from './client-error.js';
import type { PlantStoreClient } from './create-plant-store-client.js';
import type { CreatePlantInput } from './plants-api.js';
import { startProgress, type ProgressStream } from './progress.js';

export const DEFAULT_IMPORT_CONCURRENCY = 8;
export const MAX_IMPORT_CONCURRENCY = 64;

const sha256 = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');

/** What one streaming pass over the file learns: its SHA-256 (hex) and how many lines it has. */
export interface FileDigest {
  readonly sha256: string;
  readonly lines: number;
}

/** Reads the file once, in chunks, so a file of any size costs the same memory. */
export const digestFile = async (path: string): Promise<FileDigest> => {
  const hash = createHash('sha256');
  let lines = 0;
  let endsWithNewline = true;
  for await (const chunk of createReadStream(path)) {
    const bytes = chunk as Buffer;
    if (bytes.length === 0) continue;
    hash.update(bytes);
    for (let at = bytes.indexOf(0x0a); at !== -1; at = bytes.indexOf(0x0a, at + 1)) lines++;
    endsWithNewline = bytes[bytes.length - 1] === 0x0a;
  }
  return { sha256: hash.digest('hex'), lines: endsWithNewline ? lines : lines + 1 };
};

/**
 * The `Idempotency-Key` of one line: the file's content, the line's number and the line's text,
 * hashed. Running the same file again sends the same keys, so the server answers the lines it
 * already stored with their saved 201 instead of storing them twice; another file, or an edited
 * line, gets keys of its own.
 */
export const importKey = (fileSha256: string, lineNumber: number, line: string): IdempotencyKey =>
  `import:${fileSha256.slice(0, 32)}:${lineNumber}:${sha256(line).slice(0, 16)}` as IdempotencyKey;

type LineOutcome =
  | { readonly kind: 'created' | 'replayed' | 'present' | 'interrupted' }
  | { readonly kind: 'failed'; readonly message: string };

const failed = (message: string): LineOutcome => ({ kind: 'failed', message });
const decodeCreate = decodeWith(CreatePlantRequest);

/** The server's message and what identifies the exchange, as the other commands print them. */
const describeError = (error: PlantStoreError): string => {
  const facts = [
    error.status === undefined ? undefined : `HTTP ${error.status}`,
    error.requestId === undefined ? undefined : `request id ${error.requestId}`,
  ].filter((fact) => fact !== undefined);
  return `${error.message}${facts.length > 0 ? ` (${facts.join(', ')})` : ''}`;
};

const outcomeOf = (error: unknown): LineOutcome => {
  if (error instanceof AbortError) return { kind: 'interrupted' };
  if (error instanceof PlantStoreError) return failed(describeError(error));
  throw error;
};

/**
 * A 409 for a line with an id: the id is taken. When the plant there is the line's (every member
 * the same, compared through Plant's encoding, so a member added to the codec counts too), the
 * line is already present, e.g. from an earlier import without keys; otherwise
 * the line failed with the server's message.
 */
const compareWithStored = async (
  client: PlantStoreClient,
  input: CreatePlantInput & { readonly id: number },
  conflict: ConflictError,
): Promise<LineOutcome> => {
  try {
    const stored = await client.plants.get(input.id);
    return JSON.stringify(Plant.encode(stored)) === JSON.stringify(Plant.encode(input as Plant))
      ? { kind: 'present' }
      : failed(describeError(conflict));
  } catch (error) {
    return error instanceof NotFoundError ? failed(describeError(conflict)) : outcomeOf(error);
  }
};

/** A line as a create: the plant, or what is wrong with it (the part-1 messages). */
const parseLine = (line: string): E.Either<string, CreatePlantRequest> => {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch (error) {
    return E.left(`not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  return E.mapLeft((invalid: { readonly problems: readonly string[] }) => invalid.problems.join('; '))(
    decodeCreate(json),
  );
};

const importLine = async (
  client: PlantStoreClient,
  input: CreatePlantRequest,
  key: IdempotencyKey,
): Promise<LineOutcome> => {
  try {
    const created = await client.plants.create(input, { idempotencyKey: key });
    return { kind: created.replayed ? 'replayed' : 'created' };
  } catch (error) {
    // A 409 with retryAfterMs is a key still in progress, which the client already waited for.
    if (error instanceof ConflictError && error.retryAfterMs === undefined && input.id !== undefined) {
      return compareWithStored(client, { ...input, id: input.id }, error);
    }
    return outcomeOf(error);
  }
};

/** Lines per batch: the file is cut every IMPORT_BATCH_LINES lines (blank ones count), whatever it holds. */
export const IMPORT_BATCH_LINES = 1000;

/**
 * The `Idempotency-Key` of the batch of lines `first` … `first + IMPORT_BATCH_LINES - 1`: the
 * file's content and the batch's place in it. Running the same file again sends the same keys,
 * so a batch the server already stored is answered with its saved 201 (every line replayed), and
 * the others are created: no line twice, none left out. It never equals a line's key
 * (`importKey`), which has a fourth part.
 */
export const importBatchKey = (fileSha256: string, first: number): IdempotencyKey =>
  `import:${fileSha256.slice(0, 32)}:${first}-${first + IMPORT_BATCH_LINES - 1}` as IdempotencyKey;

/**
 * Whether the server refused a batch as a whole, so that its lines go one by one: any 4xx but a
 * 429 (which the client already waited for) and a 409 for a key in progress. A bad line, a taken
 * id or one given twice, a batch past BULK_BODY_LIMIT_BYTES, or a server without POST
 * /plants/batch (405) each say something about the lines, which each line's own request tells.
 */
const refusedWhole = (error: unknown): boolean =>
  error instanceof PlantStoreError &&
  error.status !== undefined &&
  error.status >= 400 &&
  error.status < 500 &&
  error.status !== 429 &&
  !(error instanceof ConflictError && error.retryAfterMs !== undefined);

/** At most `size` requests at once: `take` waits for a free one, in the order asked. */
class Slots {
  private free: number;
  private readonly waiting: (() => void)[] = [];

  constructor(size: number) {
    this.free = size;
  }

  async take(): Promise<void> {
    if (this.free > 0) {
      this.free--;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  give(): void {
    const next = this.waiting.shift();
    if (next === undefined) this.free++;
    else next();
  }
}

interface Entry {
  readonly number: number;
  readonly line: string;
}

export interface ImportSummary {
  readonly created: number;
  readonly replayed: number;
  readonly alreadyPresent: number;
  readonly failed: number;
  /** Whether the signal stopped the import before every line was done. */
  readonly interrupted: boolean;
}

export interface ImportOptions {
  readonly concurrency: number;
  readonly signal?: AbortSignal | undefined;
}

/**
 * Creates the plant of every non-blank line of `path`, in batches cut by the file alone: lines 1–1000,
 * 1001–2000, … (blank ones count, and are skipped), each batch one `POST /plants/batch` with its
 * `importBatchKey`. A batch the server refuses as a whole (a bad line, a taken id, a batch too
 * large: see refusedWhole), or that holds a line that is not a valid create, goes line by line,
 * each line with its `importKey` as a run without batches sends it, so that every line's outcome
 * is reported as before (a bad line without a request). At most `concurrency` requests are in
 * flight, batches and lines together. Reads the file as a stream (a second pass after
 * `digestFile`) and holds at most `concurrency` batches. Each failed line goes to `stderr` as it
 * is known (`line N: message`). On abort it starts no new request, lets the running ones end
 * (the client aborts them) and resolves with what was done. Rejects only for a defect or a file
 * that cannot be read.
 */
export const importFile = async (
  client: PlantStoreClient,
  path: string,
  digest: FileDigest,
  options: ImportOptions,
  stderr: ProgressStream,
): Promise<ImportSummary> => {
  const { concurrency, signal } = options;
  const counts = { created: 0, replayed: 0, present: 0, failed: 0, interrupted: 0 };
  const progress = startProgress(stderr, 'lines', digest.lines);
  const slots = new Slots(concurrency);
  const aborted = (): boolean => signal?.aborted === true;
  const running = new Set<Promise<void>>();
  let defect: { readonly error: unknown } | undefined;

  const record = (lineNumber: number, outcome: LineOutcome): void => {
    counts[outcome.kind]++;
    if (outcome.kind === 'failed') progress.log(`line ${lineNumber}: ${outcome.message}\n`);
    if (outcome.kind !== 'interrupted') progress.increment();
  };

  /** Each line of a batch on its own, in order, `concurrency` requests at a time across the file. */
  const lineByLine = async (entries: readonly (Entry & { readonly input: E.Either<string, CreatePlantRequest> })[]) => {
    const lines: Promise<void>[] = [];
    for (const { number, line, input } of entries) {
      if (E.isLeft(input)) {
        record(number, failed(input.left));
        continue;
      }
      await slots.take();
      if (aborted()) {
        slots.give();
        break;
      }
      lines.push(
        importLine(client, input.right, importKey(digest.sha256, number, line))
          .then((outcome) => record(number, outcome))
          .finally(() => slots.give()),
      );
    }
    await Promise.all(lines);
  };

  const importBatch = async (first: number, entries: readonly Entry[]): Promise<void> => {
    const parsed = entries.map((entry) => ({ ...entry, input: parseLine(entry.line) }));
    const inputs = parsed.flatMap(({ input }) => (E.isRight(input) ? [input.right] : []));
    if (inputs.length < parsed.length) return lineByLine(parsed);
    await slots.take();
    let outcome: LineOutcome | 'line by line';
    try {
      if (aborted()) return;
      const created = await client.plants.createMany(inputs, { idempotencyKey: importBatchKey(digest.sha256, first) });
      outcome = { kind: created.replayed ? 'replayed' : 'created' };
    } catch (error) {
      outcome = refusedWhole(error) ? 'line by line' : outcomeOf(error);
    } finally {
      slots.give();
    }
    if (outcome === 'line by line') return lineByLine(parsed);
    for (const { number } of parsed) record(number, outcome);
  };

  const start = (first: number, entries: readonly Entry[]): void => {
    if (entries.length === 0) return;
    const task: Promise<void> = importBatch(first, entries)
      .catch((error: unknown) => void (defect ??= { error }))
      .finally(() => running.delete(task));
    running.add(task);
  };

  const input = createReadStream(path, { encoding: 'utf8' });
  // LF only, as JSON Lines are: readline would also cut a name at U+2028 or U+2029.
  const lines = jsonLines(input);
  let lineNumber = 0;
  let first = 1;
  let batch: Entry[] = [];
  let completed = false;
  try {
    for await (const line of lines) {
      lineNumber++;
      if (aborted() || defect !== undefined) break;
      if (lineNumber >= first + IMPORT_BATCH_LINES) {
        start(first, batch);
        batch = [];
        first += IMPORT_BATCH_LINES;
        while (running.size >= concurrency) await Promise.race(running);
        if (aborted() || defect !== undefined) break;
      }
      if (line.trim() === '') {
        progress.increment();
        continue;
      }
      batch.push({ number: lineNumber, line });
    }
    completed = true;
  } finally {
    input.destroy();
    if (completed && !aborted() && defect === undefined) start(first, batch);
    await Promise.all(running);
    progress.stop();
  }
  if (defect !== undefined) throw defect.error;
  return {
    created: counts.created,
    replayed: counts.replayed,
    alreadyPresent: counts.present,
    failed: counts.failed,
    interrupted: counts.interrupted > 0 || aborted(),
  };
};

/** `created N, replayed N, already present N, failed N`. */
export const summaryLine = (summary: ImportSummary): string =>
  `created ${summary.created}, replayed ${summary.replayed}, already present ${summary.alreadyPresent}, failed ${summary.failed}\n`;
