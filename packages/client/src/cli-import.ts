/** `plant-store import`: creates the plants of a JSON Lines file, safe to run again after an interruption. */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { CreatePlantRequest, decodeWith, jsonLines, type IdempotencyKey } from '@plant-store/domain';
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
 * A 409 for a line with an id: the id is taken. When the plant there is the line's (the same name
 * and tag), the line is already present, e.g. from an earlier import without keys; otherwise
 * the line failed with the server's message.
 */
const compareWithStored = async (
  client: PlantStoreClient,
  input: CreatePlantInput & { readonly id: number },
  conflict: ConflictError,
): Promise<LineOutcome> => {
  try {
    const stored = await client.plants.get(input.id);
    return stored.name === input.name && stored.tag === input.tag
      ? { kind: 'present' }
      : failed(describeError(conflict));
  } catch (error) {
    return error instanceof NotFoundError ? failed(describeError(conflict)) : outcomeOf(error);
  }
};

const importLine = async (client: PlantStoreClient, line: string, key: IdempotencyKey): Promise<LineOutcome> => {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch (error) {
    return failed(`not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  const decoded = decodeCreate(json);
  if (E.isLeft(decoded)) return failed(decoded.left.problems.join('; '));
  const input = decoded.right;
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
 * Creates the plant of every non-blank line of `path`, `concurrency` at a time, each with its
 * `importKey`. Reads the file as a stream (a second pass after `digestFile`) and never holds more
 * than `concurrency` lines. Each failed line goes to `stderr` as it is known (`line N: message`).
 * On abort it starts no new line, lets the running ones end (the client aborts their requests)
 * and resolves with what was done. Rejects only for a defect or a file that cannot be read.
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
  const running = new Set<Promise<void>>();
  let defect: { readonly error: unknown } | undefined;

  const record = (lineNumber: number, outcome: LineOutcome): void => {
    counts[outcome.kind]++;
    if (outcome.kind === 'failed') progress.log(`line ${lineNumber}: ${outcome.message}\n`);
    if (outcome.kind !== 'interrupted') progress.increment();
  };

  const input = createReadStream(path, { encoding: 'utf8' });
  // LF only, as JSON Lines are: readline would also cut a name at U+2028 or U+2029.
  const lines = jsonLines(input);
  let lineNumber = 0;
  try {
    for await (const line of lines) {
      lineNumber++;
      if (signal?.aborted === true || defect !== undefined) break;
      if (line.trim() === '') {
        progress.increment();
        continue;
      }
      const number = lineNumber;
      const task: Promise<void> = importLine(client, line, importKey(digest.sha256, number, line))
        .then(
          (outcome) => record(number, outcome),
          (error: unknown) => void (defect ??= { error }),
        )
        .finally(() => running.delete(task));
      running.add(task);
      while (running.size >= concurrency) await Promise.race(running);
    }
  } finally {
    input.destroy();
    await Promise.all(running);
    progress.stop();
  }
  if (defect !== undefined) throw defect.error;
  return {
    created: counts.created,
    replayed: counts.replayed,
    alreadyPresent: counts.present,
    failed: counts.failed,
    interrupted: counts.interrupted > 0 || signal?.aborted === true,
  };
};

/** `created N, replayed N, already present N, failed N`. */
export const summaryLine = (summary: ImportSummary): string =>
  `created ${summary.created}, replayed ${summary.replayed}, already present ${summary.alreadyPresent}, failed ${summary.failed}\n`;
