import pino from 'pino';

export type Logger = pino.Logger;

/**
 * Fields that may carry a secret, wherever they appear in a log object. The request logger never
 * logs headers or bodies; this is the safety net for everything else.
 */
export const REDACT_PATHS = [
  'authorization',
  'token',
  'secret',
  'password',
  'hash',
  'headers.authorization',
  'req.headers.authorization',
  '*.authorization',
  '*.token',
  '*.secret',
  '*.password',
  '*.hash',
  '*.headers.authorization',
  'config.auth.seedToken',
  'config.auth.key.secret',
];

/**
 * stdout is written in chunks of at least this many bytes (about 30 request lines), not a write
 * per line: a write per line cost more than making the line.
 */
export const LOG_BUFFER_BYTES = 4096;
/** …and at least this often, so a quiet server's lines are not held back. */
export const LOG_FLUSH_INTERVAL_MS = 100;

export interface LoggerOptions {
  readonly level: pino.LevelWithSilent;
  /** Human-readable output through pino-pretty (in a worker thread); default: when stdout is a terminal. */
  readonly pretty?: boolean;
  /** Where JSON lines go (tests); default: stdout through pino's asynchronous destination. */
  readonly destination?: pino.DestinationStream;
  /** Fields added to every line (the active trace's ids, when tracing is on). */
  readonly mixin?: (() => Record<string, string>) | undefined;
}

/** pino: JSON lines with secrets redacted and errors serialised with their `cause` chain. */
export const createLogger = (options: LoggerOptions): Logger => {
  const base: pino.LoggerOptions = {
    level: options.level,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    serializers: { err: pino.stdSerializers.errWithCause },
    ...(options.mixin === undefined ? {} : { mixin: options.mixin }),
  };
  if (options.destination !== undefined) return pino(base, options.destination);
  if (options.pretty ?? process.stdout.isTTY === true) {
    return pino({
      ...base,
      transport: { target: 'pino-pretty', options: { colorize: true, translateTime: 'SYS:HH:MM:ss.l' } },
    });
  }
  return pino(
    base,
    pino.destination({ dest: 1, sync: false, minLength: LOG_BUFFER_BYTES, periodicFlush: LOG_FLUSH_INTERVAL_MS }),
  );
};
