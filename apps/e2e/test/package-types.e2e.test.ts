import { dirname, join, posix } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paths } from './support/paths.js';
import { installPackedPackages, type PackedProject } from './support/packed-packages.js';
import { runNode } from './support/processes.js';

let project: PackedProject;

/**
 * Uses values and types of both packages. The `@ts-expect-error` line fails the check if the
 * packages resolve to no types at all (everything `any`) instead of to their declarations.
 */
const consumer = `
import { createPlantStoreClient, NotFoundError, type Plant, type PlantStoreClient } from '@plant-store/client';
import { CreatePlantRequest, ENTITY_TAG_LIST_PATTERN, openApiDocument, PlantId } from '@plant-store/domain';

export const client: PlantStoreClient = createPlantStoreClient({ baseUrl: 'http://localhost:3000', token: 'token' });
export const version: '3.1.0' = openApiDocument.openapi;
export const pattern: string = ENTITY_TAG_LIST_PATTERN;
export const valid: boolean = CreatePlantRequest.is({ name: 'Fern' }) && PlantId.is(1);
export const missing = (error: unknown): boolean => error instanceof NotFoundError;
export const name = (plant: Plant): string => plant.name;
// @ts-expect-error a plant id is a number, so the packages' types were found
export const wrong: string = ({} as Plant).id;
`;

/** moduleResolution → the module setting a user pairs it with. */
const resolutions = { node16: 'node16', bundler: 'esnext', node10: 'commonjs' } as const;

/**
 * What a user's TypeScript sees: both packages are packed as npm would receive them, installed
 * into a project outside the workspace, and a consumer is type-checked under each
 * moduleResolution a user may have.
 */
describe('the packed domain and client packages, for TypeScript users', () => {
  beforeAll(async () => {
    project = await installPackedPackages('pack-types', {
      'consumer.ts': consumer,
      ...Object.fromEntries(
        Object.entries(resolutions).map(([moduleResolution, module]) => [
          `tsconfig.${moduleResolution}.json`,
          JSON.stringify({
            compilerOptions: {
              module,
              moduleResolution,
              target: 'ES2022',
              strict: true,
              noEmit: true,
              types: ['node'],
            },
            files: ['consumer.ts'],
          }),
        ]),
      ),
    });
  }, 300_000);

  afterAll(async () => {
    await project?.remove();
  });

  it.each(Object.keys(resolutions))('type-check with moduleResolution %s', async (moduleResolution) => {
    const tsc = join(paths.root, 'node_modules', 'typescript', 'bin', 'tsc');
    const checked = await runNode(tsc, ['-p', join(project.path, `tsconfig.${moduleResolution}.json`)], {}, 120_000);
    expect(checked, checked.stdout).toMatchObject({ code: 0 });
  });

  it.each(['domain', 'client'] as const)('%s ships its LICENSE', async (name) => {
    expect(await project.list(name)).toContain('package/LICENSE');
  });

  it.each(['domain', 'client'] as const)('%s has source maps that point only at files it ships', async (name) => {
    const files = await project.list(name);
    const maps = files.filter((file) => file.endsWith('.map'));
    expect(maps.length).toBeGreaterThan(0);
    const missing: string[] = [];
    for (const map of maps) {
      const {
        file,
        sourceRoot = '',
        sources,
      } = JSON.parse(await project.read(name, map)) as {
        file: string;
        sourceRoot?: string;
        sources: string[];
      };
      for (const target of [file, ...sources.map((source) => posix.join(sourceRoot, source))]) {
        const resolved = posix.join(dirname(map), target);
        if (!files.includes(resolved)) missing.push(`${map} → ${target}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it.each(['domain', 'client'] as const)('%s declares each map it ships next to the file it maps', async (name) => {
    const files = await project.list(name);
    const mapped = files.filter((file) => /\.(js|d\.ts)$/.test(file) && files.includes(`${file}.map`));
    expect(mapped.length).toBeGreaterThan(0);
    for (const file of mapped) {
      expect(await project.read(name, file), file).toContain(`//# sourceMappingURL=${posix.basename(file)}.map`);
    }
  });
});
