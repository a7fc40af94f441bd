import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paths } from './support/paths.js';
import { installPackedPackages, type PackedProject } from './support/packed-packages.js';
import { runNode } from './support/processes.js';
import { useLiveServer } from './support/store.js';

const exec = promisify(execFile);
const live = useLiveServer();
let project: PackedProject;

const program = `
import { ConflictError, createPlantStoreClient, NotFoundError } from '@plant-store/client';
import { CreatePlantRequest, openApiDocument } from '@plant-store/domain';

const client = createPlantStoreClient({ baseUrl: process.env.PLANT_STORE_URL!, token: process.env.PLANT_STORE_TOKEN! });
const plant = await client.plants.create({ id: 60606, name: 'Packed', tag: 'tarball' });
const again = await client.plants.create({ id: 60606, name: 'Packed' }).catch((error: unknown) => error);
const seen = await client.plants.get(plant.id);
await client.plants.delete(plant.id);
const gone = await client.plants.get(plant.id).catch((error: unknown) => error);
console.log(JSON.stringify({
  plant,
  seen,
  conflict: again instanceof ConflictError,
  notFound: gone instanceof NotFoundError,
  codec: CreatePlantRequest.is({ name: 'x' }),
  openapi: openApiDocument.openapi,
}));
`;

/**
 * What we would publish works for a user: both packages are packed as npm would receive them,
 * installed into a project outside the workspace, type-checked and run against a live server.
 */
describe('the packed domain and client packages', () => {
  beforeAll(async () => {
    project = await installPackedPackages('pack', {
      'tsconfig.json': JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          exactOptionalPropertyTypes: true,
          types: ['node'],
          outDir: 'out',
        },
        include: ['main.ts'],
      }),
      'main.ts': program,
    });
  }, 300_000);

  afterAll(async () => {
    await project?.remove();
  });

  it('contain only the build, its sources, the bin, the README, the LICENSE and package.json', async () => {
    const files = await project.list('client');
    expect(files).toContain('package/dist/index.js');
    expect(files).toContain('package/dist/index.d.ts');
    expect(files).toContain('package/dist/cli.js');
    expect(files).toContain('package/bin/plant-store.js');
    expect(files).toContain('package/src/index.ts');
    expect(files.filter((f) => /\.test\.ts$/.test(f))).toEqual([]);
    expect(
      files.filter(
        (f) =>
          !/^package\/(dist\/|src\/|bin\/plant-store\.js$|README\.md$|package\.json$|CHANGELOG\.md$|LICENSE)/.test(f),
      ),
    ).toEqual([]);
  });

  it('type-check and run in a plain ESM project without @opentelemetry/api against the live server', async () => {
    // Tracing is an optional peer of the client: npm does not install it, and nothing may need it.
    expect(existsSync(join(project.path, 'node_modules', '@opentelemetry', 'api'))).toBe(false);
    const tsc = join(paths.root, 'node_modules', 'typescript', 'bin', 'tsc');
    const compiled = await runNode(tsc, ['-p', join(project.path, 'tsconfig.json')], {}, 120_000);
    expect(compiled, compiled.stdout).toMatchObject({ code: 0 });

    const ran = await runNode(join(project.path, 'out', 'main.js'), [], {
      PLANT_STORE_URL: live.server.url,
      PLANT_STORE_TOKEN: live.token,
    });
    expect(ran.stderr).toBe('');
    expect(JSON.parse(ran.stdout)).toEqual({
      plant: { id: 60606, name: 'Packed', tag: 'tarball' },
      seen: { id: 60606, name: 'Packed', tag: 'tarball' },
      conflict: true,
      notFound: true,
      codec: true,
      openapi: '3.1.0',
    });
  });

  it('install the plant-store CLI as a working bin', async () => {
    const bin = join(project.path, 'node_modules', '.bin', 'plant-store');
    const { stdout } = await exec(bin, ['--version'], { cwd: project.path });
    expect(stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });
});
