import {
  idTaken,
  MAX_PLANT_ID,
  Plant,
  PlantIdFromPath,
  plantNotFound,
  withoutNulls,
  preconditionFailed,
  type PlantId,
  type PlantNotFound,
  type PreconditionFailed,
} from '@plant-store/domain';
import * as E from 'fp-ts/lib/Either.js';
import {
  failedPrecondition,
  failedPreconditionWhenAbsent,
  storeUnavailable,
  type NewPlant,
  type StoreError,
  type WriteCondition,
} from '../../ports/plant-store.js';
import { replayOf, type SavedCreate } from '../../idempotency/replay.js';
import { PostgresStoreError } from './gate.js';
import { PLANT_FIELDS } from '../plant-columns.js';
import { savedCreateFromRow, type SegmentRow } from './rows.js';
import type { CreateWrite, ReplaceOutcome, UpdateOutcome, Write } from './write.js';

// How the rows a committed write statement returned become each write's outcome.

export const unavailable = (message: string, code: string): StoreError =>
  storeUnavailable(new PostgresStoreError(message, code));

/** The plant a create stored under `id`: the caller's decoded members, not read back. */
export const stored = (id: PlantId, plant: NewPlant): Plant => ({ ...plant, id });

/**
 * Hands each write of a committed segment its outcome, except server-assigned creates that found
 * the id space above the high-water mark used up: those are returned, for createInGap.
 */
export const settle = (writes: readonly Write[], rows: readonly SegmentRow[]): CreateWrite[] => {
  const exhausted: CreateWrite[] = [];
  writes.forEach((write, i) => {
    const row = rows[i];
    if (row === undefined || row.i !== i) {
      write.resolve(E.left(unavailable('the write statement returned rows out of order', 'BAD_RESULT')));
      return;
    }
    if (write.kind === 'delete') {
      if (!row.done) write.resolve(E.left(notDone(write.id, row, write.condition)));
      else if (row.change_seq === null) write.resolve(E.left(noChangeSeq()));
      else write.resolve(E.right({ changeSeq: row.change_seq }));
      return;
    }
    if (write.kind === 'update') {
      write.resolve(row.done ? updatedPlant(write.id, row) : E.left(notDone(write.id, row, write.condition)));
      return;
    }
    if (write.kind === 'replace') {
      write.resolve(replacedPlant(write, row));
      return;
    }
    const { plant, claim } = write;
    if (row.saved_status !== null && claim !== undefined) {
      write.resolve(E.chainW((saved: SavedCreate) => replayOf(saved, claim))(savedCreateFromRow(row)));
    } else if (row.done) {
      const id = PlantIdFromPath.decode(row.id);
      if (E.isLeft(id)) {
        write.resolve(E.left(unavailable(`the stored plant id ${String(row.id)} is out of range`, 'BAD_RESULT')));
        return;
      }
      if (row.version === null || row.change_seq === null) {
        write.resolve(
          E.left(unavailable('the write statement returned no version or change for a stored plant', 'BAD_RESULT')),
        );
        return;
      }
      write.resolve(
        E.right({
          result: E.right({ plant: stored(id.right, plant), version: row.version, changeSeq: row.change_seq }),
          replayed: false,
        }),
      );
    } else if (plant.id !== undefined) {
      write.resolve(E.right({ result: E.left(idTaken(plant.id)), replayed: false }));
    } else if (Number(row.id) > MAX_PLANT_ID) {
      exhausted.push(write);
    } else {
      // Cannot happen while the high-water mark holds; refuse rather than guess.
      write.resolve(E.left(unavailable(`assigned plant id ${String(row.id)} is already taken`, 'ID_COLLISION')));
    }
  });
  return exhausted;
};

/** Every write's resolve takes a StoreError. */
export const fail = (write: Write, failed: E.Either<StoreError, never>): void => {
  if (write.kind === 'create') write.resolve(failed);
  else if (write.kind === 'update') write.resolve(failed);
  else if (write.kind === 'replace') write.resolve(failed);
  else write.resolve(failed);
};

const noChangeSeq = (): StoreError =>
  unavailable('the write statement returned no change number for a write it did', 'BAD_RESULT');

/** Why an update or delete did nothing: no plant, or (found) a precondition that failed. */
const notDone = (
  id: PlantId,
  row: SegmentRow,
  condition: WriteCondition | undefined,
): PlantNotFound | PreconditionFailed | StoreError => {
  if (!row.found) return plantNotFound(id);
  const header =
    condition === undefined || row.version === null ? undefined : failedPrecondition(condition, row.version);
  return header === undefined
    ? unavailable('the write statement refused a write whose conditions hold', 'BAD_RESULT')
    : preconditionFailed(id, header);
};

/** The plant an update left (changed or not), decoded like every row. */
const updatedPlant = (id: PlantId, row: SegmentRow): UpdateOutcome => {
  const columns = row as unknown as Readonly<Record<string, unknown>>;
  const plant = Plant.decode(withoutNulls({ ...Object.fromEntries(PLANT_FIELDS.map((f) => [f, columns[f]])), id }));
  if (E.isLeft(plant) || row.version === null)
    return E.left(unavailable('the write statement returned an updated plant that does not decode', 'BAD_RESULT'));
  if (row.change_seq === null) return E.left(noChangeSeq());
  return E.right({ plant: plant.right, version: row.version, changeSeq: row.change_seq });
};

/**
 * A PUT's outcome: done, the plant is the body with its id (created when no plant was found);
 * not done, the precondition that failed (If-Match for a plant that was not there).
 */
const replacedPlant = (write: Extract<Write, { readonly kind: 'replace' }>, row: SegmentRow): ReplaceOutcome => {
  const { id, plant, condition } = write;
  if (!row.done) {
    const header = row.found
      ? row.version === null
        ? undefined
        : failedPrecondition(condition, row.version)
      : failedPreconditionWhenAbsent(condition);
    return E.left(
      header === undefined
        ? unavailable(`the write statement did not replace plant ${id} although its conditions hold`, 'BAD_RESULT')
        : preconditionFailed(id, header, !row.found),
    );
  }
  if (row.version === null || row.change_seq === null) return E.left(noChangeSeq());
  return E.right({ plant: stored(id, plant), version: row.version, changeSeq: row.change_seq, created: !row.found });
};
