import { statSync } from 'node:fs';
import type { CheckpointWorker } from './checkpoint-worker.js';
import type { StoreLogger } from './group-commit.js';

/** Above this many times its bound the WAL is restarted while the store holds its writes. */
export const WAL_HOLD_FACTOR = 1.5;
/** After a restart that could not be done, the writes are not held again for this long, doubled
 * after each further failure in a row up to the most (a long reader, such as a backup, pins the WAL). */
const HOLD_AGAIN_AFTER_MS = 1000;
const HOLD_AGAIN_AFTER_MOST_MS = 30_000;
/** The WAL's size is looked up (a stat) at most this often, not for every batch. */
const LOOK_EVERY_MS = 5;

const sizeOf = (file: string): number => {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
};

/**
 * The WAL's hard bound (docs/explanation/storage.md, "The WAL and its checkpoints"). The checkpoint
 * thread restarts the WAL between writes, but a RESTART needs a moment when no write transaction
 * runs: under writes without a pause it keeps finding one, and the WAL grows for as long as the
 * load lasts. So once the WAL file is over `holdAboveBytes`, the next batch waits (writes queue,
 * reads go on) until the thread has restarted the WAL — a few milliseconds, the frames since its
 * last PASSIVE checkpoint — or given up. The writer then starts the WAL over and cuts the file
 * back to its bound (`journal_size_limit`).
 */
export class WalHold {
  private lookedAt = -Infinity;
  private holdAgainAt = -Infinity;
  /** Restarts asked for in a row that could not be done. */
  private failures = 0;

  constructor(
    private readonly walFile: string,
    private readonly holdAboveBytes: number,
    /** The checkpoint thread, while it runs. */
    private readonly worker: () => CheckpointWorker | undefined,
    private readonly logger: StoreLogger | undefined,
  ) {}

  /** GroupCommit's `hold`: a promise while the WAL is being restarted, else undefined. */
  check(): Promise<void> | undefined {
    const now = performance.now();
    if (now - this.lookedAt < LOOK_EVERY_MS || now < this.holdAgainAt) return undefined;
    this.lookedAt = now;
    const worker = this.worker();
    if (worker === undefined) return undefined;
    const walBytes = sizeOf(this.walFile);
    if (walBytes <= this.holdAboveBytes) return undefined;
    return worker.restartNow().then((answer) => {
      // No answer in time (a thread starved of CPU, or one restart still on its way): the next
      // look may ask again; only a restart the thread could not do backs off.
      if (answer === undefined) return;
      if (answer.restarted) {
        this.failures = 0;
        return;
      }
      this.failures += 1;
      const wait = Math.min(HOLD_AGAIN_AFTER_MS * 2 ** (this.failures - 1), HOLD_AGAIN_AFTER_MOST_MS);
      this.holdAgainAt = performance.now() + wait;
      if (this.failures === 1)
        this.logger?.warn(
          { walBytes: answer.walBytes, holdAboveBytes: this.holdAboveBytes },
          'the WAL is over its bound and could not be restarted (a long reader?); writes go on without waiting for it',
        );
    });
  }
}
