import { describe, expect, it } from 'vitest';
import { createLifecycle } from './lifecycle.js';

const recorder = () => {
  const errors: { obj: object; msg: string }[] = [];
  return { errors, logger: { error: (obj: object, msg: string) => void errors.push({ obj, msg }) } };
};

describe('createLifecycle', () => {
  it('closes the components newest first', async () => {
    const { logger } = recorder();
    const lifecycle = createLifecycle(logger);
    const order: string[] = [];
    lifecycle.add('store', () => void order.push('store'));
    lifecycle.add('dispatcher', async () => {
      await new Promise((resolve) => setTimeout(resolve, 5)); // a close that takes time: the next must wait for it
      order.push('dispatcher');
    });
    lifecycle.add('listener', () => void order.push('listener'));
    expect(await lifecycle.closeAll()).toBe(true);
    expect(order).toEqual(['listener', 'dispatcher', 'store']);
  });

  it('closes each once, however often it is asked', async () => {
    const lifecycle = createLifecycle(recorder().logger);
    let closed = 0;
    lifecycle.add('store', () => void (closed += 1));
    const first = lifecycle.closeAll();
    expect(lifecycle.closeAll()).toBe(first);
    await first;
    expect(await lifecycle.closeAll()).toBe(true);
    expect(closed).toBe(1);
  });

  it('calls the newest closer at once, so a drain starts with the request', () => {
    const lifecycle = createLifecycle(recorder().logger);
    let draining = false;
    lifecycle.add('listener', () => {
      draining = true;
    });
    void lifecycle.closeAll();
    expect(draining).toBe(true);
  });

  it('logs a closer that fails, closes the rest and resolves false', async () => {
    const { errors, logger } = recorder();
    const lifecycle = createLifecycle(logger);
    const err = new Error('disk gone');
    let storeClosed = false;
    lifecycle.add('store', () => {
      storeClosed = true;
    });
    lifecycle.add('rate limiter', () => Promise.reject(err));
    expect(await lifecycle.closeAll()).toBe(false);
    expect(storeClosed).toBe(true);
    expect(errors).toEqual([{ obj: { err }, msg: 'could not close the rate limiter' }]);
  });

  it('closes at once a component that finished starting after shutdown began', async () => {
    const lifecycle = createLifecycle(recorder().logger);
    await lifecycle.closeAll();
    let closed = false;
    lifecycle.add('metrics server', () => {
      closed = true;
    });
    expect(closed).toBe(true);
  });
});
