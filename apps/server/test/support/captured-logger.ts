import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../src/logger.js';

/** A real logger at `level` whose lines land, parsed, in `lines`: what a test checks was logged. */
export const capturedLogger = (
  level: 'debug' | 'info',
): { readonly lines: Record<string, unknown>[]; readonly logger: Logger } => {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString('utf8').split('\n'))
        if (line !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
      callback();
    },
  });
  return { lines, logger: createLogger({ level, destination }) };
};
