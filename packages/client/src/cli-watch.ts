/** `plant-store watch`: one line per change, as the change feed brings them, until Ctrl-C or a 410. */
import { changeBody, type Change, type ChangePosition } from '@plant-store/domain';
import { writeLine, type LineSink } from './cli-export.js';
import { ChangesExpiredError } from './client-error.js';
import type { PlantStoreClient } from './create-plant-store-client.js';

/**
 * A change as one line for people: its number, type and plant id, then for a create or an update
 * the name (JSON-quoted, so spaces and quotes stay readable) and the tag, if any.
 * `42 plant.created 7 "Monstera" tropical`, `44 plant.deleted 7`, `45 plant.left 8` (`--tag`).
 */
export const changeLine = (change: Change): string => {
  const words = [String(change.seq), change.type, String(change.data.id)];
  if (change.type === 'plant.created' || change.type === 'plant.updated') {
    words.push(JSON.stringify(change.data.name));
    if (change.data.tag !== undefined) words.push(change.data.tag);
  }
  return `${words.join(' ')}\n`;
};

export interface WatchIo {
  readonly stdout: LineSink;
  readonly stderr: { write(chunk: string): unknown };
  readonly signal?: AbortSignal | undefined;
}

export interface WatchOptions {
  readonly since?: ChangePosition | undefined;
  /** Only the changes of plants with this tag before or after them (`plant.left` for one that leaves). */
  readonly tag?: string | undefined;
  /** Each change's JSON, byte for byte as the server sent it, one per line. */
  readonly json: boolean;
}

/**
 * Prints the changes after `since` (absent: those committed from now on) until `io.signal`
 * aborts (`'interrupted'`) or the server answers 410 (`'expired'`, after a line on stderr saying
 * what to do). Other failures reject with the client's errors. A full stdout makes it wait (the
 * server cuts a stream left unread, and the feed resumes from the last change printed), so
 * memory stays flat.
 */
export const watchChanges = async (
  client: PlantStoreClient,
  { since, tag, json }: WatchOptions,
  io: WatchIo,
): Promise<'interrupted' | 'expired'> => {
  let position: number | undefined = since;
  try {
    for await (const change of client.plants.changes({
      ...(since === undefined ? {} : { since }),
      ...(tag === undefined ? {} : { tag }),
      ...(io.signal === undefined ? {} : { signal: io.signal }),
    })) {
      await writeLine(io.stdout, json ? `${changeBody(change)}\n` : changeLine(change), io.signal);
      position = change.seq;
    }
    // The feed ends only when the signal (Ctrl-C) ends it.
    return 'interrupted';
  } catch (error) {
    if (!(error instanceof ChangesExpiredError)) throw error;
    const after = position === undefined ? 'the changes watch was waiting for' : `the changes after ${position}`;
    const facts = ['HTTP 410', ...(error.requestId === undefined ? [] : [`request id ${error.requestId}`])].join(', ');
    io.stderr.write(
      `plant-store: ${after} have expired: the server no longer keeps them (CHANGES_RETENTION), so watch cannot go on without missing some; read the plants again ("plant-store export" or "plant-store list --all"), then run "plant-store watch" without --since (${facts})\n`,
    );
    return 'expired';
  }
};
