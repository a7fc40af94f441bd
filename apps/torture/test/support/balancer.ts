import http from 'node:http';
import { RequestFailed, send, type SendOptions, type SimpleResponse } from './http.js';
import type { ServerProcess } from './processes.js';

/**
 * What a load balancer in front of several instances does, in the test process: each request goes
 * to the next instance in rotation (round robin, keep-alive connections per instance). It is not
 * told when an instance is stopped; like a balancer's passive health check it learns it from a
 * refused connection, takes that instance out of rotation and sends the request to the next one
 * (a refused connection never reached a server, so even a POST is safe to send again).
 *
 * A request cut before any answer began by an instance the operator had begun to stop (a
 * keep-alive connection closed by its drain as the request went out) is excused: its outcome is
 * unknown, as for a balancer that does not resend what it cannot know was not applied. Anything
 * else — a refusal or a cut from an instance that should be serving, and an answer cut short by
 * any instance, draining or not (a drain finishes every answer it began) — is a violation.
 */
export interface BackendTally {
  requests: number;
  /** 2xx answers to POST, PATCH and DELETE. */
  writes: number;
  refused: number;
  cut: number;
  readonly statuses: Map<number, number>;
}

interface Backend {
  readonly name: string;
  readonly server: ServerProcess;
  readonly agent: http.Agent;
  inRotation: boolean;
  stopping: boolean;
  /** Figures of the current phase, and of the whole round (each request counted when its outcome is known). */
  phase: BackendTally;
  readonly total: BackendTally;
}

const newTally = (): BackendTally => ({ requests: 0, writes: 0, refused: 0, cut: 0, statuses: new Map() });

export class Balancer {
  readonly violations: string[] = [];
  /** Requests sent again to another instance after a refused connection. */
  rerouted = 0;
  private readonly backends: Backend[] = [];
  private readonly excused = new WeakMap<RequestFailed, string>();
  private turn = 0;

  constructor(private readonly sockets: number) {}

  /** Puts a started instance into rotation. */
  add(name: string, server: ServerProcess): void {
    const agent = new http.Agent({ keepAlive: true, maxSockets: this.sockets });
    this.backends.push({
      name,
      server,
      agent,
      inRotation: true,
      stopping: false,
      phase: newTally(),
      total: newTally(),
    });
  }

  /** The operator is about to send SIGTERM: from now on a refusal or a cut from it is expected (the balancer is not told). */
  stopping(name: string): void {
    const backend = this.backends.find((b) => b.name === name);
    if (backend === undefined) throw new TypeError(`no instance ${name}`);
    backend.stopping = true;
  }

  /** Whether `name` is still in rotation (false once a refused connection took it out). */
  inRotation(name: string): boolean {
    return this.backends.some((b) => b.name === name && b.inRotation);
  }

  readonly send = async (options: Omit<SendOptions, 'agent' | 'port'>): Promise<SimpleResponse> => {
    for (;;) {
      const serving = this.backends.filter((b) => b.inRotation);
      const backend = serving[this.turn++ % Math.max(1, serving.length)];
      if (backend === undefined) throw new RequestFailed('no-response', 'no instance in rotation');
      try {
        const res = await send({ ...options, agent: backend.agent, port: backend.server.port });
        for (const tally of [backend.phase, backend.total]) {
          tally.requests++;
          tally.statuses.set(res.status, (tally.statuses.get(res.status) ?? 0) + 1);
          if (options.method !== 'GET' && res.status >= 200 && res.status < 300) tally.writes++;
        }
        return res;
      } catch (error) {
        if (!(error instanceof RequestFailed)) throw error;
        if (error.phase === 'no-response' && error.code === 'ECONNREFUSED') {
          for (const tally of [backend.phase, backend.total]) {
            tally.requests++;
            tally.refused++;
          }
          backend.inRotation = false;
          if (!backend.stopping) this.violations.push(`${backend.name} refused a connection while it should serve`);
          this.rerouted++;
          continue;
        }
        for (const tally of [backend.phase, backend.total]) {
          tally.requests++;
          tally.cut++;
        }
        // From an instance that should serve, the load reports it; so does a truncated answer, even
        // from a draining instance: a drain finishes every answer it began.
        if (backend.stopping && error.phase === 'no-response')
          this.excused.set(error, `cut by ${backend.name} while it was being stopped, before an answer began`);
        throw error;
      }
    }
  };

  /** Why `error` breaks nothing (see the class), or undefined. */
  readonly excuse = (error: RequestFailed): string | undefined => this.excused.get(error);

  /** The figures of each instance since the last call, and starts new ones. */
  nextPhase(): Map<string, BackendTally> {
    const done = new Map(this.backends.map((b) => [b.name, b.phase]));
    for (const backend of this.backends) backend.phase = newTally();
    return done;
  }

  totals(): Map<string, BackendTally> {
    return new Map(this.backends.map((b) => [b.name, b.total]));
  }

  close(): void {
    for (const backend of this.backends) backend.agent.destroy();
  }
}
