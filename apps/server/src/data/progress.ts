import cliProgress from 'cli-progress';

/** How far a long command has come; silent unless stderr is a terminal. */
export interface Progress {
  /** Starts (or restarts) a bar for `label` with `total` units. */
  start(label: string, total: number): void;
  /** Sets the units done so far. */
  update(done: number): void;
  /** Ends the bar (leaving its last state on the terminal). */
  stop(): void;
}

const silent: Progress = { start: () => undefined, update: () => undefined, stop: () => undefined };

const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

/**
 * A progress bar on `stream` (done / total, rate, ETA) drawn by cli-progress, which redraws in
 * place at most every 100 ms; when `stream` is not a terminal (a pipe, a log file, CI), nothing at
 * all: the command prints only its result and its errors there. `unit: 'bytes'` shows MiB.
 */
export const progressOn = (stream: NodeJS.WriteStream, unit: 'rows' | 'bytes' = 'rows'): Progress => {
  if (stream.isTTY !== true) return silent;
  const show = unit === 'bytes' ? mib : (n: number) => Math.round(n).toLocaleString('en-US');
  let bar: cliProgress.SingleBar | undefined;
  let startedAt = 0;
  let total = 0;
  const values = (done: number) => {
    const seconds = (Date.now() - startedAt) / 1000;
    return {
      done: show(done),
      all: show(total),
      rate: seconds > 0 ? `${show(done / seconds)}/s` : '-',
    };
  };
  return {
    start(label, units) {
      bar?.stop();
      total = units;
      startedAt = Date.now();
      bar = new cliProgress.SingleBar(
        {
          stream,
          format: `${label.padEnd(18)} [{bar}] {percentage}% | {done} / {all} | {rate} | ETA {eta_formatted}`,
          hideCursor: true,
          etaBuffer: 50,
        },
        cliProgress.Presets.shades_classic,
      );
      bar.start(Math.max(units, 1), 0, values(0));
    },
    update(done) {
      bar?.update(Math.min(done, Math.max(total, 1)), values(done));
    },
    stop() {
      bar?.stop();
      bar = undefined;
    },
  };
};
