/**
 * strace's output as calls, for the rounds that watch a running server's system calls from
 * outside. Expects `strace -f -ttt -T -yy -xx`: every thread, times in seconds at entry, the time
 * spent in the call, descriptors with what they name, and every string in hex (`\x48\x54…`), so
 * written bytes and paths come back exactly.
 */

/** One system call: its thread, when it began and ended (seconds), its descriptor and bytes. */
export interface Call {
  readonly tid: number;
  readonly name: string;
  readonly start: number;
  readonly end: number;
  /** The first argument when it is a descriptor. */
  readonly fd: number | undefined;
  /** What the descriptor names: a path, or e.g. `TCP:[127.0.0.1:80->127.0.0.1:5000]`. */
  readonly target: string;
  /** The bytes of the first string argument (what a write wrote), as far as strace showed them. */
  readonly data: Buffer;
  /** The return value, e.g. `0` or `-1`; `?` when strace did not show one. */
  readonly result: string;
}

const LINE = /^(\d+) +(\d+\.\d+) (.*)$/;
const DURATION = / <(\d+\.\d+)>$/;
const HEX = /(?:\\x[0-9a-f]{2})+/g;

/** `\x2f\x74…` back to its bytes; anything strace showed as is stays as it is. */
const unescape = (text: string): Buffer =>
  Buffer.concat(
    text
      .split(/((?:\\x[0-9a-f]{2})+)/)
      .map((part, i) => (i % 2 === 1 ? Buffer.from(part.replace(/\\x/g, ''), 'hex') : Buffer.from(part, 'latin1'))),
  );

const callOf = (tid: number, name: string, start: number, duration: number, args: string, tail: string): Call => {
  // A socket is shown as `TCP:[a->b]` (its `>` inside the brackets), a path as hex.
  const fd = /^(\d+)<([A-Za-z0-9]+:\[[^\]]*\]|(?:\\x[0-9a-f]{2}|[^>\\])*)>/.exec(args);
  const data = /"((?:[^"\\]|\\x[0-9a-f]{2})*)"/.exec(args.slice(fd?.[0].length ?? 0));
  return {
    tid,
    name,
    start,
    end: start + duration,
    fd: fd === null ? undefined : Number(fd[1]),
    target: fd === null ? '' : (fd[2] ?? '').replace(HEX, (hex) => unescape(hex).toString('utf8')),
    data: data === null ? Buffer.alloc(0) : unescape(data[1] ?? ''),
    result: /\) += (-?\d+)/.exec(tail)?.[1] ?? '?',
  };
};

/** Joins strace's `<unfinished ...>` and `<... resumed>` halves; calls in the order they began. */
export const parseStrace = (output: string): Call[] => {
  const calls: Call[] = [];
  const open = new Map<number, { name: string; start: number; args: string }>();
  for (const line of output.split('\n')) {
    const m = LINE.exec(line);
    if (m === null) continue;
    const tid = Number(m[1]);
    const at = Number(m[2]);
    const rest = m[3] ?? '';
    const unfinished = /^([a-z0-9_]+)\((.*) <unfinished \.\.\.>$/.exec(rest);
    if (unfinished !== null) {
      open.set(tid, { name: unfinished[1] ?? '', start: at, args: unfinished[2] ?? '' });
      continue;
    }
    const duration = Number(DURATION.exec(rest)?.[1] ?? 0);
    const resumed = /^<\.\.\. ([a-z0-9_]+) resumed>(.*)$/.exec(rest);
    if (resumed !== null) {
      const begun = open.get(tid);
      open.delete(tid);
      if (begun === undefined) continue;
      const tail = resumed[2] ?? '';
      calls.push(callOf(tid, begun.name, begun.start, duration, begun.args + tail, tail));
      continue;
    }
    const whole = /^([a-z0-9_]+)\((.*)$/.exec(rest);
    if (whole === null) continue;
    calls.push(callOf(tid, whole[1] ?? '', at, duration, whole[2] ?? '', rest));
  }
  return calls.sort((a, b) => a.start - b.start);
};
