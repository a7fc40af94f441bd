import { describe, expect, it } from 'vitest';
import { MAX_RECONNECT_MS, reconnectDelay } from './change-feed.js';

describe('reconnectDelay', () => {
  it('waits a random part of the stream retry, doubling the ceiling per failure', () => {
    expect(reconnectDelay(1, 2000, undefined, () => 0.5)).toBe(1000);
    expect(reconnectDelay(2, 2000, undefined, () => 0.5)).toBe(2000);
    expect(reconnectDelay(3, 2000, undefined, () => 0.5)).toBe(4000);
    expect(reconnectDelay(1, 10, undefined, () => 0.99)).toBe(9);
    expect(reconnectDelay(1, 2000, undefined, () => 0)).toBe(0);
  });

  it('caps the ceiling at 30 s however many failures', () => {
    expect(MAX_RECONNECT_MS).toBe(30_000);
    expect(reconnectDelay(20, 2000, undefined, () => 0.5)).toBe(15_000);
    expect(reconnectDelay(2000, 2000, undefined, () => 0.999_999)).toBe(29_999);
  });

  it('waits at least what a Retry-After asked for', () => {
    expect(reconnectDelay(1, 2000, 5000, () => 0.5)).toBe(5000);
    expect(reconnectDelay(1, 2000, 10, () => 0.5)).toBe(1000);
  });
});
