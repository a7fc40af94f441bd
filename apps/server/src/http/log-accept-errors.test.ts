import { describe, expect, it } from 'vitest';
import type { Logger } from '../logger.js';
import { logAcceptErrors } from './server.js';

describe('logAcceptErrors', () => {
  it('logs a failed accept once per interval, with how many failed since the last line', () => {
    let now = 5000;
    const lines: { obj: object; msg: string }[] = [];
    const logger = { warn: (obj: object, msg: string) => void lines.push({ obj, msg }) } as unknown as Logger;
    const onError = logAcceptErrors(logger, 1000, () => now);
    const emfile = Object.assign(new Error('accept EMFILE'), { code: 'EMFILE' });
    for (let i = 0; i < 500; i++) onError(emfile);
    expect(lines).toHaveLength(1);
    expect(lines[0]?.obj).toEqual({ code: 'EMFILE', failed: 1 });
    now += 999;
    onError(emfile);
    expect(lines).toHaveLength(1);
    now += 1;
    onError(emfile);
    expect(lines.map((l) => l.obj)).toEqual([
      { code: 'EMFILE', failed: 1 },
      { code: 'EMFILE', failed: 501 },
    ]);
  });
});
