import type { WriteTrace } from '../../tracing/tracing.js';
import type { BatchContext } from './group-commit.js';
import type { OutboxBatch } from './outbox.js';
import type { PlantIdAllocator } from './plant-ids.js';

/**
 * What the writes of one group-commit transaction share: the id high-water mark, the outbox
 * (events of the changes they commit), and what to do once the batch is durable.
 */
export class SqliteBatch implements BatchContext {
  constructor(
    readonly ids: PlantIdAllocator,
    readonly outbox: OutboxBatch,
    private readonly onEvents: () => void,
  ) {}

  finish(): void {
    this.ids.finish();
  }

  applied(): void {
    this.ids.applied();
  }

  committed(): void {
    if (this.outbox.wrote) this.onEvents();
  }

  traced(trace: WriteTrace | undefined): void {
    this.outbox.trace = trace;
  }
}
