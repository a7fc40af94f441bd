import { readFileSync } from 'node:fs';
import { until } from '@plant-store/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createToken,
  describeImage,
  docker,
  DockerResources,
  dockerOk,
  firstRunToken,
  inspect,
  listening,
  publishedUrl,
} from './support/docker.js';
import { coreApi, type Targets } from './support/core-api.js';

const serverPackage = JSON.parse(readFileSync(new URL('../../server/package.json', import.meta.url), 'utf8')) as {
  devDependencies: Record<string, string>;
};

const json = { 'content-type': 'application/json' };
const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });

/** The image's default drain bound (its SHUTDOWN_TIMEOUT_MS), below `docker stop`'s 10 s grace. */
const drainMs = 8_000;

/**
 * The image as an operator runs it on one machine: the SQLite store on a volume, the first-run
 * token from the log, the CLIs through `docker exec`, a new container on the same volume, and
 * `docker stop` under load.
 */
describeImage('the image on SQLite', (image) => {
  const resources = new DockerResources();
  let volume: string;
  let container: string;
  let url: string;
  let token: string;

  /** A container of the image on the volume, its port published on 127.0.0.1. */
  const start = async (): Promise<{ container: string; url: string; log: string }> => {
    const started = await resources.run(image, ['-v', `${volume}:/data`, '-p', '127.0.0.1::3000']);
    const log = await listening(started);
    return { container: started, url: await publishedUrl(started), log };
  };

  beforeAll(async () => {
    volume = await resources.volume('data');
    const first = await start();
    ({ container, url } = first);
    token = firstRunToken(first.log);
  });

  afterAll(() => resources.removeAll());

  it('is labelled, declares /data, listens on 3000 as user node, and has no dev or test files', async () => {
    const config = JSON.parse(await dockerOk(['image', 'inspect', '--format', '{{json .Config}}', image])) as {
      User: string;
      Volumes: Record<string, unknown>;
      ExposedPorts: Record<string, unknown>;
      Labels: Record<string, string>;
      Cmd: string[];
      Healthcheck?: { Test: string[] };
    };
    expect(config.User).toBe('node');
    expect(Object.keys(config.Volumes)).toEqual(['/data']);
    expect(Object.keys(config.ExposedPorts)).toEqual(['3000/tcp']);
    expect(config.Cmd).toEqual(['node', '/app/dist/main.js']);
    expect(config.Healthcheck?.Test[0]).toBe('CMD');
    for (const label of ['title', 'description', 'version', 'revision', 'created'])
      expect(config.Labels[`org.opencontainers.image.${label}`], label).toMatch(/\S/);

    const size = Number(await dockerOk(['image', 'inspect', '--format', '{{.Size}}', image]));
    console.log(`image ${image}: ${(size / 1e6).toFixed(0)} MB`);

    // the server's devDependencies are not installed, and none of the workspace's tests or maps ship
    const devDependencies = Object.keys(serverPackage.devDependencies);
    const present = await dockerOk([
      'run',
      '--rm',
      image,
      'sh',
      '-c',
      `cd /app/node_modules && for name in ${devDependencies.join(' ')}; do [ -e "$name" ] && echo "$name"; done; ls .pnpm | grep -E '^(vitest|typescript|@plant-store\\+testkit)@' ; true`,
    ]);
    expect(present).toBe('');
    const ours = await dockerOk([
      'run',
      '--rm',
      image,
      'sh',
      '-c',
      'find /app -path /app/node_modules -prune -o -type f -print',
    ]);
    expect(ours.split('\n').filter((file) => /\.map$|\.test\.|\/(src|test)\//.test(file))).toEqual([]);
    expect(ours).toContain('/app/dist/main.js');
    expect(await dockerOk(['run', '--rm', image, 'sh', '-c', "find /app -name '*.map' | wc -l"])).toBe('0');
  });

  it('runs the server as the unprivileged user node (uid 1000), and the health check turns healthy', async () => {
    expect(await dockerOk(['exec', container, 'id', '-u'])).toBe('1000');
    // PID 1 is node itself, so docker stop's SIGTERM reaches the server
    expect(await dockerOk(['exec', container, 'sh', '-c', 'tr "\\0" " " </proc/1/cmdline'])).toBe(
      'node /app/dist/main.js',
    );
    expect(await dockerOk(['exec', container, 'sh', '-c', "awk '/^Uid:/ {print $2}' /proc/1/status"])).toBe('1000');
    await until(
      'the health status healthy',
      async () => (await inspect(container, '{{.State.Health.Status}}')) === 'healthy',
      60_000,
      { everyMs: 100 },
    );
  });

  it('runs the token, webhook and data CLIs with docker exec, against the store the server serves', async () => {
    const reader = await createToken(container, 'reader', ['plants:read']);
    expect((await fetch(`${url}/plants`, { headers: bearer(reader) })).status).toBe(200);
    expect((await fetch(`${url}/plants`, { method: 'POST', headers: bearer(reader) })).status).toBe(403);
    expect(await dockerOk(['exec', container, 'plant-store-tokens', 'list'])).toMatch(/first-run[\s\S]*reader/);
    expect((await docker(['exec', container, 'plant-store-webhooks', 'list'])).code).toBe(0);
    const backup = await docker(['exec', container, 'plant-store-data', 'backup', '/data/copy.db', '--force']);
    expect(backup.code, backup.stderr).toBe(0);
    expect((await docker(['exec', container, 'plant-store-data', 'export'])).code).toBe(0);
  });

  describe('the core API through the container', () => {
    let targets: Targets;
    beforeAll(async () => {
      targets = {
        urls: [url],
        tokens: {
          all: token,
          read: await createToken(container, 'core-api-read', ['plants:read']),
          write: await createToken(container, 'core-api-write', ['plants:write']),
        },
      };
    });
    coreApi(() => targets);
  });

  it('keeps its plants on the volume: a new container of the image finds them', async () => {
    const created = await fetch(`${url}/plants`, {
      method: 'POST',
      headers: { ...bearer(token), ...json },
      body: JSON.stringify({ name: 'Kept on the volume', tag: 'volume' }),
    });
    expect(created.status).toBe(201);
    const location = created.headers.get('location')!;
    await dockerOk(['stop', container]);
    await dockerOk(['rm', container]);

    const next = await start();
    ({ container, url } = next);
    // the store already holds a token: no new first-run token
    expect(next.log).not.toMatch(/pst_/);
    const read = await fetch(`${url}${location}`, { headers: bearer(token) });
    expect(await read.json()).toEqual({
      id: Number(location.split('/')[2]),
      name: 'Kept on the volume',
      tag: 'volume',
    });
  });

  it('docker stop under a load of creates drains, exits 0 within the drain bound, and loses no acknowledged create', async () => {
    const acknowledged: string[] = [];
    let failedBeforeStop = 0;
    let endedAfterStop = 0;
    let stopping = false;
    /** Creates one after another until the server stops answering them (or 20,000 of them). */
    const writer = async (w: number): Promise<void> => {
      for (let i = 0; i < 20_000; i++) {
        try {
          const reply = await fetch(`${url}/plants`, {
            method: 'POST',
            headers: { ...bearer(token), ...json },
            body: JSON.stringify({ name: `load ${w}.${i}` }),
            signal: AbortSignal.timeout(drainMs + 2_000),
          });
          await reply.arrayBuffer();
          if (reply.status === 201) {
            acknowledged.push(reply.headers.get('location')!);
            continue;
          }
        } catch {
          // refused or cut: counted below
        }
        if (!stopping) failedBeforeStop += 1;
        else {
          endedAfterStop += 1;
          return;
        }
      }
    };
    const writers = Array.from({ length: 8 }, (_, w) => writer(w));
    await until('the first acknowledged creates', () => acknowledged.length >= 200, 30_000, { everyMs: 100 });
    stopping = true;
    const before = acknowledged.length;
    const started = performance.now();
    await dockerOk(['stop', container], 30_000);
    const stopMs = performance.now() - started;
    await Promise.all(writers);
    console.log(
      `docker stop under load: ${stopMs.toFixed(0)} ms; ${acknowledged.length} creates acknowledged (${acknowledged.length - before} after the stop began); ${endedAfterStop} writers ended by a refused or cut request`,
    );
    expect(failedBeforeStop).toBe(0);
    expect(await inspect(container, '{{.State.ExitCode}}')).toBe('0');
    expect(stopMs).toBeLessThan(drainMs);

    const next = await start();
    ({ container, url } = next);
    const stored = new Set<string>();
    for (let after = 0; ;) {
      const page = (await (
        await fetch(`${url}/plants?limit=1000&after=${after}`, { headers: bearer(token) })
      ).json()) as {
        id: number;
      }[];
      for (const plant of page) stored.add(`/plants/${plant.id}`);
      if (page.length < 1000) break;
      after = page.at(-1)!.id;
    }
    expect(acknowledged.filter((location) => !stored.has(location))).toEqual([]);
  });
});
