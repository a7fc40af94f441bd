import { describe, expect, it } from 'vitest';
import { capturedLogger } from '../test/support/captured-logger.js';

describe('createLogger', () => {
  it('writes JSON lines with secrets redacted at the top level and one level down', () => {
    const { lines, logger } = capturedLogger('info');
    logger.info(
      {
        token: 'pst_secret',
        authorization: 'Bearer pst_secret',
        nested: { secret: 's3', hash: 'abcd' },
        req: { headers: { authorization: 'x' } },
      },
      'hi',
    );
    expect(lines[0]).toMatchObject({
      msg: 'hi',
      token: '[redacted]',
      authorization: '[redacted]',
      nested: { secret: '[redacted]', hash: '[redacted]' },
      req: { headers: { authorization: '[redacted]' } },
    });
    expect(JSON.stringify(lines)).not.toContain('pst_secret');
  });

  it('logs errors with their cause chain', () => {
    const { lines, logger } = capturedLogger('info');
    logger.error({ err: new TypeError('outer', { cause: new Error('inner cause') }) }, 'failed');
    expect(JSON.stringify(lines[0]?.['err'])).toContain('inner cause');
    expect(lines[0]).toMatchObject({
      level: 50,
      err: { type: 'TypeError', message: expect.stringContaining('outer') },
    });
  });

  it('keeps the level', () => {
    const { lines, logger } = capturedLogger('info');
    logger.debug('hidden');
    logger.warn('shown');
    expect(lines.map((l) => l['msg'])).toEqual(['shown']);
  });
});
