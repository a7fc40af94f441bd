import { describe, expect, it } from 'vitest';
import { until } from '../src/until.js';

describe('until', () => {
  it('resolves with what the check gave once it is neither false nor undefined', async () => {
    let calls = 0;
    expect(await until('a value', () => (++calls < 3 ? undefined : 'ready'), 1_000, { everyMs: 1 })).toBe('ready');
    expect(await until('a yes', () => calls++ > 4, 1_000, { everyMs: 1 })).toBe(true);
  });

  it('rejects naming what it waited for and how far it got', async () => {
    await expect(until('the moon', () => false, 30, { everyMs: 5, detail: () => '2 of 3' })).rejects.toThrow(
      'timed out after 30 ms waiting for the moon: 2 of 3',
    );
  });
});
