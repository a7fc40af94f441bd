import { describe, expect, it } from 'vitest';
import { replyAfterReads } from './reply-after-reads.js';

const ctx = {} as Parameters<typeof replyAfterReads>[0];
const checkPhase = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
const microtasks = async (): Promise<void> => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
};

describe('replyAfterReads', () => {
  it('holds a response made in the same turn until the check phase', async () => {
    let replied = false;
    const reply = replyAfterReads(ctx, async () => undefined).then(() => (replied = true));
    await microtasks();
    expect(replied).toBe(false); // not before the turn's reads are over
    await reply;
    expect(replied).toBe(true);
  });

  it('sends a response that already waited past a check phase (a commit) at once', async () => {
    const events: string[] = [];
    const reply = replyAfterReads(ctx, async () => {
      await checkPhase(); // as a group commit: the work happens on setImmediate
      setImmediate(() => events.push('next check phase'));
    }).then(() => events.push('replied'));
    await reply;
    await checkPhase();
    expect(events).toEqual(['replied', 'next check phase']);
  });

  it('lets every request of a turn share one check phase', async () => {
    const order: number[] = [];
    await Promise.all([1, 2, 3].map((n) => replyAfterReads(ctx, async () => undefined).then(() => order.push(n))));
    expect(order).toEqual([1, 2, 3]);
  });
});
