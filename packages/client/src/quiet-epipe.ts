/** How the `plant-store` bin ends when its reader goes away. */

/** The part of `process.stdout` this needs. */
export interface ErrorEmitter {
  on(event: 'error', listener: (error: NodeJS.ErrnoException) => void): unknown;
}

/**
 * A reader that stops early (`plant-store export | head`, `plant-store watch | head`) closes the
 * pipe: the output ends there, quietly, with the exit code so far (0 unless one was set), as with
 * other Unix tools, instead of an unhandled EPIPE and its stack trace. Any other error of stdout
 * is thrown: it is not an ordinary end. `watch` learns of the closed pipe at its next line.
 */
export const endQuietlyOnEpipe = (
  stdout: ErrorEmitter,
  exit: (code: number) => void,
  exitCode: () => number | string | null | undefined,
): void => {
  stdout.on('error', (error) => {
    if (error.code !== 'EPIPE') throw error;
    const code = exitCode();
    exit(code === undefined || code === null ? 0 : Number(code));
  });
};
