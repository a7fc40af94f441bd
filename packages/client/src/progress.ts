/** The progress bar of the long `plant-store` commands (export, import): on a terminal only. */
import cliProgress from 'cli-progress';

/** Where the bar goes: stderr, or a stand-in in tests. No `isTTY` reads as "not a terminal". */
export interface ProgressStream {
  write(chunk: string): unknown;
  readonly isTTY?: boolean;
}

export interface Progress {
  /** Whether a bar is drawn (the stream is a terminal); callers skip work only the bar needs. */
  readonly shown: boolean;
  setTotal(total: number): void;
  increment(): void;
  /** Writes a whole line to the stream above the bar, so the line is not drawn over. */
  log(line: string): void;
  /** Draws the bar a last time and leaves the cursor below it. Safe to call twice. */
  stop(): void;
}

const silent = (stream: ProgressStream): Progress => ({
  shown: false,
  setTotal: () => {},
  increment: () => {},
  log: (line) => void stream.write(line),
  stop: () => {},
});

/**
 * A bar of `done/total`, the rate per second and the ETA on `stream` when it is a terminal; when it
 * is not (piped, redirected, a test), nothing but what `log` is given, so that the output of a
 * script holds results and errors only.
 */
export const startProgress = (stream: ProgressStream, unit: string, total = 0): Progress => {
  if (stream.isTTY !== true) return silent(stream);
  const bar = new cliProgress.SingleBar({
    // The bar only reads `write`, `isTTY` and `columns` of it.
    stream: stream as unknown as NodeJS.WritableStream,
    format: `{bar} {value}/{total} ${unit} | {rate}/s | ETA {eta_formatted}`,
    barsize: 30,
    hideCursor: true,
    etaBuffer: 50,
  });
  const startedAt = Date.now();
  let done = 0;
  let stopped = false;
  const rate = (): string => {
    const seconds = (Date.now() - startedAt) / 1000;
    return seconds > 0 ? String(Math.round(done / seconds)) : '0';
  };
  bar.start(total, 0, { rate: '0' });
  return {
    shown: true,
    setTotal: (next) => bar.setTotal(next),
    increment: () => {
      done++;
      bar.increment(1, { rate: rate() });
    },
    log: (line) => {
      // Clear the bar's line, write above it, and draw the bar again below.
      stream.write(`\r\x1b[2K${line}`);
      if (!stopped) bar.render();
    },
    stop: () => {
      if (stopped) return;
      stopped = true;
      bar.stop();
    },
  };
};
