import { describe, expect, it } from 'vitest';
import { oncePerTurn } from './once-per-turn.js';

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('oncePerTurn', () => {
  it('reads once for every call of a turn, and again in the next turn', async () => {
    let reads = 0;
    const current = oncePerTurn(() => (reads += 1));
    expect([current(), current(), current()]).toEqual([1, 1, 1]);
    await Promise.resolve();
    expect(current()).toBe(1);
    await nextTurn();
    expect([current(), current()]).toEqual([2, 2]);
    expect(reads).toBe(2);
  });

  it('holds nothing when the read throws', async () => {
    let fail = true;
    const current = oncePerTurn(() => {
      if (fail) throw new Error('busy');
      return 'ok';
    });
    expect(current).toThrow('busy');
    fail = false;
    expect(current()).toBe('ok');
  });
});
