import { createPlantStoreClient, NotFoundError } from '@plant-store/client';
import { describePostgres, freshPostgresUrl, type FreshPostgres } from '@plant-store/testkit';
import { execFile } from 'node:child_process';
import { cp, mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { paths } from './support/paths.js';
import { runNode, startServer, tempDir, type ServerProcess } from './support/processes.js';

const exec = promisify(execFile);

/**
 * The deployment command of docs/guides/operations.md produces a self-contained folder that starts with `node` alone,
 * outside the workspace, against PostgreSQL.
 */
describePostgres('the deployed server folder', () => {
  let work: { path: string; remove(): Promise<void> };
  let database: FreshPostgres;
  let server: ServerProcess | undefined;
  let token: string | undefined;

  beforeAll(async () => {
    work = await tempDir('deploy');
    const target = join(work.path, 'plant-store-server');
    await exec(
      'pnpm',
      ['--filter', '@plant-store/server', '--config.inject-workspace-packages=true', 'deploy', '--prod', target],
      {
        cwd: paths.root,
        timeout: 240_000,
      },
    );
    // the versions of the workspace's lockfile, not versions resolved again
    const deployedLock = await readFile(join(target, 'pnpm-lock.yaml'), 'utf8');
    const workspaceLock = await readFile(join(paths.root, 'pnpm-lock.yaml'), 'utf8');
    for (const resolved of deployedLock.matchAll(/^ {2}'?(@?[^@\s']+@\d[^:'\s(]*)'?:/gm))
      expect(workspaceLock, resolved[1]).toContain(resolved[1]);
    // prove it does not lean on the workspace: move it somewhere else before running it
    const moved = join(work.path, 'elsewhere', 'srv');
    await mkdir(join(work.path, 'elsewhere'));
    await cp(target, moved, { recursive: true, verbatimSymlinks: true });
    database = await freshPostgresUrl();
    const tokens = await runNode(
      join(moved, 'dist', 'tokens', 'cli.js'),
      ['create', '--name', 'deploy', '--scope', 'plants:read', '--scope', 'plants:write'],
      {
        DATABASE_URL: database.url,
      },
    );
    expect(tokens.code, tokens.stderr).toBe(0);
    token = /\b(pst_[A-Za-z0-9_-]{20,})\b/.exec(tokens.stdout)?.[1];
    server = await startServer({ DATABASE_URL: database.url }, { main: join(moved, 'dist', 'main.js'), cwd: moved });
  }, 300_000);

  afterAll(async () => {
    await server?.stop();
    await database?.drop();
    await work?.remove();
  });

  it('starts with node alone and creates and deletes a plant', async () => {
    const plants = createPlantStoreClient({ baseUrl: server!.url, token: token! }).plants;
    const plant = await plants.create({ name: 'Deployed', tag: 'prod' });
    expect(await plants.get(plant.id)).toEqual(plant);
    await plants.delete(plant.id);
    await expect(plants.get(plant.id)).rejects.toBeInstanceOf(NotFoundError);
    expect(server!.output()).toContain('"store":"postgres"');
  });
});
