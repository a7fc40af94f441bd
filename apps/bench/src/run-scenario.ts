import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import * as E from 'fp-ts/lib/Either.js';
import { PathReporter } from 'io-ts/lib/PathReporter.js';
import { coreBusySecondsOf, cpuSecondsOf, memoryOf, sampleRss, spawnNode, waitForExit } from './processes.js';
import type { Row } from './report.js';
import { DriverResult, type DriverSpec } from './scenarios.js';
import type { StoreName } from './config.js';
import type { RunningServer } from './servers.js';

export interface ScenarioRun {
  readonly row: Row;
  readonly nextId: number;
}

/**
 * Runs one scenario: the driver (src/driver.ts) in its own process on `core`, the server's RSS
 * sampled throughout and its CPU time read at the start and end of the measured interval.
 */
export const runScenario = async (
  server: RunningServer,
  store: { readonly name: StoreName; readonly label: string },
  spec: DriverSpec,
  cores: { readonly server: number | undefined; readonly driver: number | undefined },
  /** The built driver; tests pass dist/driver.js. */
  entry: string = fileURLToPath(new URL('./driver.js', import.meta.url)),
): Promise<ScenarioRun> => {
  const rss = sampleRss(server.pid);
  const driver = spawnNode({ core: cores.driver, args: [entry, JSON.stringify(spec)] });
  let stderr = '';
  driver.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-8000);
  });

  interface CpuMark {
    readonly at: number;
    readonly cpu: number | undefined;
    readonly serverCore: number | undefined;
    readonly driverCore: number | undefined;
  }
  const mark = (): CpuMark => ({
    at: performance.now(),
    cpu: cpuSecondsOf(server.pid),
    serverCore: cores.server === undefined ? undefined : coreBusySecondsOf(cores.server),
    driverCore: cores.driver === undefined ? undefined : coreBusySecondsOf(cores.driver),
  });
  let cpuStart: CpuMark | undefined;
  let cpuEnd: CpuMark | undefined;
  let result: DriverResult | undefined;
  const lines = createInterface({ input: driver.stdout as NodeJS.ReadableStream });
  lines.on('line', (line) => {
    if (line === 'MEASURE') {
      cpuStart = mark();
    } else if (line.startsWith('RESULT ')) {
      cpuEnd = mark();
      const decoded = DriverResult.decode(JSON.parse(line.slice(7)));
      if (E.isLeft(decoded)) stderr += `\nunreadable driver result: ${PathReporter.report(decoded).join('; ')}`;
      else result = decoded.right;
    }
  });
  await waitForExit(driver);
  const rssPeak = rss.stop();
  if (driver.exitCode !== 0 || result === undefined) {
    throw new Error(`load driver failed (exit ${String(driver.exitCode ?? driver.signalCode)}):\n${stderr}`);
  }
  const r = result;
  const seconds = cpuStart !== undefined && cpuEnd !== undefined ? (cpuEnd.at - cpuStart.at) / 1000 : 0;
  const perSecond = (a: number | undefined, b: number | undefined): number | undefined =>
    a !== undefined && b !== undefined && seconds > 0 ? (b - a) / seconds : undefined;
  const serverCpu = perSecond(cpuStart?.cpu, cpuEnd?.cpu);
  const serverCoreBusy = perSecond(cpuStart?.serverCore, cpuEnd?.serverCore);
  const driverCoreBusy = perSecond(cpuStart?.driverCore, cpuEnd?.driverCore);
  const other = (busy: number | undefined, ours: number | undefined): number | undefined =>
    busy === undefined || ours === undefined ? undefined : Math.max(0, busy - ours);
  return {
    nextId: r.nextId,
    row: {
      scenario: spec.kind,
      store: store.name,
      storeLabel: store.label,
      connections: spec.connections,
      rps: r.rps,
      responses: r.responses,
      measuredSeconds: r.measuredSeconds,
      latency: r.latency,
      errors: r.unexpected + r.errors,
      timeouts: r.timeouts,
      unexpected: r.unexpected,
      statusCounts: r.statusCounts,
      rssPeak,
      rssHighWater: memoryOf(server.pid).hwm,
      serverCpu,
      driverCpu: r.driverCpu,
      otherCpuServerCore: other(serverCoreBusy, serverCpu),
      otherCpuDriverCore: other(driverCoreBusy, r.driverCpu),
    },
  };
};
