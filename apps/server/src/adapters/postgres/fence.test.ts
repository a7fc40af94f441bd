import { describe, expect, it } from 'vitest';
import { Fence, judge, readIdentity, type HostIdentity } from './fence.js';
import { FENCED } from './gate.js';

const primary = (timeline: number, system = '7713'): HostIdentity => ({ role: 'primary', system, timeline });

describe('judge: the fencing rule', () => {
  it('admits the first primary of a cluster, as newer', () => {
    expect(judge(new Map(), primary(1))).toEqual({ admit: true, newer: true });
  });

  it('admits a primary on the newest timeline seen, and a newer one as newer', () => {
    const seen = new Map([['7713', 2]]);
    expect(judge(seen, primary(2))).toEqual({ admit: true, newer: false });
    expect(judge(seen, primary(3))).toEqual({ admit: true, newer: true });
  });

  it('refuses a primary on an older timeline of the same cluster: a former primary', () => {
    const verdict = judge(new Map([['7713', 2]]), primary(1));
    expect(verdict.admit).toBe(false);
    expect(verdict.admit === false && verdict.reason).toMatch(/timeline 1 of system 7713, older than timeline 2/);
  });

  it('never compares timelines of different clusters', () => {
    expect(judge(new Map([['7713', 5]]), primary(1, '9999'))).toEqual({ admit: true, newer: true });
  });

  it('admits a standby (the driver and the read-only error deal with it)', () => {
    expect(judge(new Map([['7713', 5]]), { role: 'standby' })).toEqual({ admit: true, newer: false });
  });
});

describe('readIdentity', () => {
  it('reads the timeline from the WAL file name, in hexadecimal', () => {
    expect(readIdentity({ system: '7713', standby: false, timeline: '0000001A' })).toEqual(primary(26));
    expect(readIdentity({ system: '7713', standby: true, timeline: null })).toEqual({ role: 'standby' });
    expect(() => readIdentity({ system: '7713', standby: false, timeline: null })).toThrow(/no timeline/);
  });
});

const sqlError = (message: string, code: string): Error => Object.assign(new Error(message), { code });

const fenceOver = (hosts: Map<string, HostIdentity | Error | 'hang'>, timeoutMs = 50) => {
  const logged: { level: string; msg: string }[] = [];
  let newer = 0;
  let refused = 0;
  const fence = new Fence({
    identify: async (host, port) => {
      const found = hosts.get(`${host}:${port}`);
      if (found === 'hang') return new Promise<never>(() => undefined);
      if (found === undefined) throw sqlError('connect ECONNREFUSED', 'ECONNREFUSED');
      if (found instanceof Error) throw found;
      return found;
    },
    timeoutMs,
    logger: {
      info: (_, msg) => logged.push({ level: 'info', msg }),
      warn: (_, msg) => logged.push({ level: 'warn', msg }),
      error: (_, msg) => logged.push({ level: 'error', msg }),
    },
    onNewer: () => void newer++,
    onRefused: () => void refused++,
  });
  return { fence, logged, newer: () => newer, refused: () => refused };
};

describe('Fence', () => {
  it('learns the newest timeline from every host at start and refuses the former primary, logging it once', async () => {
    const hosts = new Map<string, HostIdentity | Error | 'hang'>([
      ['a:5432', primary(1)],
      ['b:5432', primary(2)],
    ]);
    const { fence, logged, newer, refused } = fenceOver(hosts);
    await fence.survey([
      { host: 'a', port: 5432 },
      { host: 'b', port: 5432 },
      { host: 'down', port: 5432 },
    ]);
    expect(fence.newest.get('7713')).toBe(2);
    // The survey comes before the store's first connection: nothing refused yet.
    expect(refused()).toBe(0);
    expect(await fence.admit('b', 5432)).toBeUndefined();
    for (let i = 0; i < 3; i++) {
      const refusal = await fence.admit('a', 5432);
      expect(refusal).toBeInstanceOf(Error);
      expect((refusal as Error & { code?: string }).code).toBe(FENCED);
    }
    expect(logged.filter((l) => l.level === 'error' && l.msg.startsWith('refusing PostgreSQL at a:5432'))).toHaveLength(
      1,
    );
    // Each refusal is told (the gate's outage mode bounds the operations waiting meanwhile).
    expect(refused()).toBe(3);
    // Seen a (1) then b (2) in either order: a newer timeline after the first is a failover.
    expect(newer()).toBeLessThanOrEqual(1);
  });

  it('follows a promotion: a newer primary raises the timeline, cuts the old connections, and the old one is refused', async () => {
    const hosts = new Map<string, HostIdentity | Error | 'hang'>([['a:5432', primary(1)]]);
    const { fence, logged, newer } = fenceOver(hosts);
    await fence.survey([{ host: 'a', port: 5432 }]);
    expect(await fence.admit('a', 5432)).toBeUndefined();
    hosts.set('b:5432', { role: 'standby' });
    expect(await fence.admit('b', 5432)).toBeUndefined();
    hosts.set('b:5432', primary(2));
    expect(await fence.admit('b', 5432)).toBeUndefined();
    expect(newer()).toBe(1);
    expect(logged.some((l) => l.level === 'warn' && /timeline 2 \(was 1\)/.test(l.msg))).toBe(true);
    expect((await fence.admit('a', 5432))?.message).toMatch(/fenced: a primary on timeline 1/);
    // Rebuilt as a standby, then promoted again: admitted.
    hosts.set('a:5432', primary(3));
    expect(await fence.admit('a', 5432)).toBeUndefined();
    expect((await fence.admit('b', 5432))?.message).toMatch(/timeline 2 of system 7713, older than timeline 3/);
  });

  it('refuses a host it cannot identify with the cause (as the connection itself would fail), within the timeout', async () => {
    const { fence, refused } = fenceOver(new Map([['slow:1', 'hang']]), 30);
    const down = await fence.admit('down', 1);
    expect((down as Error & { code?: string }).code).toBe('ECONNREFUSED');
    const started = performance.now();
    const slow = await fence.admit('slow', 1);
    expect((slow as Error & { code?: string }).code).toBe('CONNECT_TIMEOUT');
    expect(performance.now() - started).toBeLessThan(1000);
    expect(refused()).toBe(2);
  });

  it('turns itself off, saying so, when the database refuses the question (a role denied the functions)', async () => {
    const hosts = new Map<string, HostIdentity | Error | 'hang'>([
      ['a:1', sqlError('permission denied for function pg_control_system', '42501')],
    ]);
    const { fence, logged } = fenceOver(hosts);
    expect(await fence.admit('a', 1)).toBeUndefined();
    hosts.set('a:1', primary(1));
    expect(await fence.admit('a', 1)).toBeUndefined();
    expect(logged.filter((l) => l.level === 'warn' && /will not be refused/.test(l.msg))).toHaveLength(1);
  });
});
