/**
 * SIGTERM and SIGINT. Signals are counted, not stop requests (the cluster primary's IPC request is
 * not a signal): the first signal this process gets asks for a graceful stop, the second one calls
 * `again` (exit at once).
 */
export const onStopSignals = (
  first: (signal: NodeJS.Signals) => void,
  again: (signal: NodeJS.Signals) => void,
): void => {
  let received = 0;
  const onSignal = (signal: NodeJS.Signals): void => {
    received += 1;
    if (received === 1) first(signal);
    else again(signal);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
};
