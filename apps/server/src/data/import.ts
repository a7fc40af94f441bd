import { createReadStream } from 'node:fs';
import { CreatePlantRequest, formatErrors, jsonLines, type Plant } from '@plant-store/domain';
import * as E from 'fp-ts/lib/Either.js';
import { idLiteralProblem } from '../wire/json-number.js';
import type { ImportOutcome, ImportPlant } from '../ports/store-data.js';
import type { Progress } from './progress.js';

/** Lines written per transaction. */
export const IMPORT_CHUNK = 1000;

/** A line of the file: its number (from 1) and what it holds. */
export type ImportLine =
  | { readonly line: number; readonly plant: ImportPlant }
  | { readonly line: number; readonly problems: readonly string[] };

/** Reads `text`, one line of a JSON Lines file, with the rules of a create's body, and an id required. */
export const decodeLine = (line: number, text: string): ImportLine => {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return { line, problems: [`not valid JSON: ${(error as Error).message}`] };
  }
  const problems: string[] = [];
  const literal = idLiteralProblem(text, parsed);
  if (literal !== undefined) problems.push(literal);
  const decoded = CreatePlantRequest.decode(parsed);
  if (E.isLeft(decoded)) problems.push(...formatErrors(decoded.left));
  if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) && !Object.hasOwn(parsed, 'id'))
    problems.push('id: required: an imported plant keeps its id');
  if (E.isLeft(decoded) || problems.length > 0) return { line, problems };
  const { id } = decoded.right;
  if (id === undefined) return { line, problems: ['id: required: an imported plant keeps its id'] };
  return { line, plant: { ...decoded.right, id } };
};

/** The file's non-blank lines, decoded, one at a time (constant memory). */
export async function* readLines(file: string): AsyncIterable<ImportLine> {
  let n = 0;
  for await (const text of jsonLines(createReadStream(file, { encoding: 'utf8' }))) {
    n += 1;
    if (text.trim() === '') continue;
    yield decodeLine(n, text);
  }
}

export interface ImportSummary {
  created: number;
  present: number;
  conflicts: number;
  skipped: number;
}

/** Where each outcome that is not a plain success goes (one line per failure, on stderr). */
export interface ImportReport {
  invalid(line: number, problems: readonly string[]): void;
  conflict(line: number, plant: ImportPlant, stored: Plant): void;
}

/**
 * Imports the file in two passes: the first reads every line and reports each invalid one; unless
 * `skipInvalid`, an invalid line stops the import before anything is written. The second writes
 * the valid lines through `write`, in chunks of distinct ids (a chunk is one transaction), and
 * reports each conflict: an id stored with another name or tag, left as it is.
 */
export const importFile = async (
  file: string,
  options: { readonly skipInvalid: boolean },
  write: (plants: readonly ImportPlant[]) => Promise<readonly ImportOutcome[]>,
  report: ImportReport,
  progress: Progress,
): Promise<ImportSummary & { readonly written: boolean }> => {
  const summary: ImportSummary = { created: 0, present: 0, conflicts: 0, skipped: 0 };
  let valid = 0;
  for await (const line of readLines(file)) {
    if ('plant' in line) valid += 1;
    else {
      summary.skipped += 1;
      report.invalid(line.line, line.problems);
    }
  }
  if (summary.skipped > 0 && !options.skipInvalid) return { ...summary, written: false };

  progress.start('importing', valid);
  let chunk: { line: number; plant: ImportPlant }[] = [];
  let ids = new Set<number>();
  let done = 0;
  const flush = async () => {
    if (chunk.length === 0) return;
    const outcomes = await write(chunk.map((c) => c.plant));
    outcomes.forEach((outcome, i) => {
      const { line, plant } = chunk[i] as { line: number; plant: ImportPlant };
      if (outcome === 'created') summary.created += 1;
      else if (outcome === 'present') summary.present += 1;
      else {
        summary.conflicts += 1;
        report.conflict(line, plant, outcome.conflict.plant);
      }
    });
    done += chunk.length;
    progress.update(done);
    chunk = [];
    ids = new Set();
  };
  for await (const line of readLines(file)) {
    if (!('plant' in line)) continue;
    // A repeated id waits for the next chunk, where it meets the first as stored.
    if (ids.has(line.plant.id) || chunk.length === IMPORT_CHUNK) await flush();
    chunk.push(line);
    ids.add(line.plant.id);
  }
  await flush();
  progress.stop();
  return { ...summary, written: true };
};
