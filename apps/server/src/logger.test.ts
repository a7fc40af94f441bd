import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from './logger.js';

const capture = () => {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString('utf8').split('\n'))
        if (line !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
      callback();
    },
  });
  return { lines, logger: createLogger({ level: 'info', destination }) };
};

describe('createLogger', () => {
  it('writes JSON lines with secrets redacted at the top level and one level down', () => {
    const { lines, logger } = capture();
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
    const { lines, logger } = capture();
    logger.error({ err: new TypeError('outer', { cause: new Error('inner cause') }) }, 'failed');
    expect(JSON.stringify(lines[0]?.['err'])).toContain('inner cause');
    expect(lines[0]).toMatchObject({
      level: 50,
      err: { type: 'TypeError', message: expect.stringContaining('outer') },
    });
  });

  it('keeps the level', () => {
    const { lines, logger } = capture();
    logger.debug('hidden');
    logger.warn('shown');
    expect(lines.map((l) => l['msg'])).toEqual(['shown']);
  });
});
