import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { errorBodyProblems, RequestFailed, send } from './http.js';

export interface ReadySample {
  readonly port: number;
  readonly sentAt: number;
  readonly status: number;
  readonly ms: number;
}

export interface ReadyPoller {
  readonly samples: ReadySample[];
  stop(): Promise<void>;
}

/**
 * Polls `/readyz` of every port, one request at a time each, until `stop()`. Every answer must be
 * 200 or the JSON 503, within `boundMs`; what is wrong goes to `problems`.
 */
export const pollReady = (
  {
    ports,
    boundMs,
    everyMs,
  }: { readonly ports: readonly number[]; readonly boundMs: number; readonly everyMs: number },
  problems: string[],
): ReadyPoller => {
  const samples: ReadySample[] = [];
  let stopped = false;
  const poll = async (port: number) => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    while (!stopped) {
      const sentAt = Date.now();
      try {
        const res = await send({ agent, port, method: 'GET', path: '/readyz', timeoutMs: boundMs + 10_000 });
        const ms = Date.now() - sentAt;
        samples.push({ port, sentAt, status: res.status, ms });
        if (ms > boundMs)
          problems.push(`GET :${port}/readyz answered ${res.status} after ${ms} ms (bound ${boundMs} ms)`);
        if (res.status === 503)
          problems.push(
            ...errorBodyProblems(503, res.headers['content-type'], res.body).map((p) => `GET /readyz → 503: ${p}`),
          );
        else if (res.status !== 200) problems.push(`GET /readyz → ${res.status} ${res.body.slice(0, 200)}`);
      } catch (error) {
        if (!(error instanceof RequestFailed)) throw error;
        problems.push(`GET :${port}/readyz: no answer (${error.message})`);
      }
      await sleep(everyMs);
    }
    agent.destroy();
  };
  const done = Promise.all(ports.map(poll));
  return {
    samples,
    stop: async () => {
      stopped = true;
      await done;
    },
  };
};
