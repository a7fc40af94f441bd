import { describePostgres, freePort, freshPostgresUrl, type FreshPostgres } from '@plant-store/testkit';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createToken, describeImage, DockerResources, dockerOk, listening, logs } from './support/docker.js';
import { coreApi, type Targets } from './support/core-api.js';

/**
 * Two containers of the image over the machine's PostgreSQL, as two instances behind a balancer:
 * started at once (their migrations race), tokens made with the CLI in one container work in the
 * other, and the core API holds through both. Host networking: the machine's PostgreSQL listens
 * on 127.0.0.1 only.
 */
describeImage('two containers of the image over one PostgreSQL', (image) => {
  describePostgres('instances', () => {
    const resources = new DockerResources();
    let database: FreshPostgres;
    let containers: string[] = [];
    let targets: Targets;

    beforeAll(async () => {
      database = await freshPostgresUrl();
      const ports = [await freePort(), await freePort()];
      containers = await Promise.all(
        ports.map((port) =>
          resources.run(image, [
            '--network',
            'host',
            '-e',
            `DATABASE_URL=${database.url}`,
            '-e',
            'HOST=127.0.0.1',
            '-e',
            `PORT=${port}`,
          ]),
        ),
      );
      await Promise.all(containers.map((container) => listening(container)));
      targets = {
        urls: ports.map((port) => `http://127.0.0.1:${port}`),
        tokens: {
          all: await createToken(containers[0]!, 'all', ['plants:read', 'plants:write']),
          read: await createToken(containers[1]!, 'read', ['plants:read']),
          write: await createToken(containers[0]!, 'write', ['plants:write']),
        },
      };
    });

    afterAll(async () => {
      await resources.removeAll();
      await database?.drop();
    });

    it('both serve the PostgreSQL store; exactly one printed a first-run token', async () => {
      const texts = await Promise.all(containers.map((container) => logs(container)));
      for (const text of texts) expect(text).toContain('"store":"postgres"');
      expect(texts.filter((text) => /^ {4}pst_/m.test(text))).toHaveLength(1);
    });

    coreApi(() => targets);

    it('both stop on docker stop with exit code 0', async () => {
      await Promise.all(containers.map((container) => dockerOk(['stop', container], 30_000)));
      for (const container of containers)
        expect(await dockerOk(['inspect', '--format', '{{.State.ExitCode}}', container])).toBe('0');
    });
  });
});
