/**
 * `read`'s value, read at most once per event-loop turn: the first call reads it, and the value
 * is forgotten in the turn's check phase (`setImmediate`), so the requests of the next turn read
 * it again. For a cheap statement every request would otherwise run on its own (each one a read
 * transaction of its own: file locks and a stat), when everything read in one turn may share it.
 */
export const oncePerTurn = <T>(read: () => T): (() => T) => {
  let held: { readonly value: T } | undefined;
  const forget = (): void => {
    held = undefined;
  };
  return () => {
    if (held === undefined) {
      held = { value: read() };
      setImmediate(forget);
    }
    return held.value;
  };
};
