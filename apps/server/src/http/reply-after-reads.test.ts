import { describe, expect, it } from 'vitest';
import { endOfReads } from './reply-after-reads.js';

const checkPhase = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
const microtasks = async (): Promise<void> => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
};

/** What the request frame does: take the turn's end of reads first, reply once it and the work are done. */
const reply = async (work: () => Promise<void>): Promise<void> => {
  const reads = endOfReads();
  await work();
  await reads;
};

describe('endOfReads', () => {
  it('holds a response made in the same turn until the check phase', async () => {
    let replied = false;
    const replying = reply(async () => undefined).then(() => (replied = true));
    await microtasks();
    expect(replied).toBe(false); // not before the turn's reads are over
    await replying;
    expect(replied).toBe(true);
  });

  it('sends a response that already waited past a check phase (a commit) at once', async () => {
    const events: string[] = [];
    const replying = reply(async () => {
      await checkPhase(); // as a group commit: the work happens on setImmediate
      setImmediate(() => events.push('next check phase'));
    }).then(() => events.push('replied'));
    await replying;
    await checkPhase();
    expect(events).toEqual(['replied', 'next check phase']);
  });

  it('lets every request of a turn share one check phase', async () => {
    const order: number[] = [];
    await Promise.all([1, 2, 3].map((n) => reply(async () => undefined).then(() => order.push(n))));
    expect(order).toEqual([1, 2, 3]);
    expect(endOfReads()).toBe(endOfReads()); // one promise, one setImmediate, per turn
  });
});
