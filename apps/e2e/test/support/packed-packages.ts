import { execFile } from 'node:child_process';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { paths } from './paths.js';
import { tempDir } from './processes.js';

const exec = promisify(execFile);

export type PackageName = 'domain' | 'client';

/** Both published packages, packed as npm would receive them and installed where a user would. */
export interface PackedProject {
  /** The project folder, outside the workspace. */
  readonly path: string;
  /** The tarball's file list, as `package/…` paths. */
  list(name: PackageName): Promise<string[]>;
  /** A file of the tarball, read from its unpacked copy. */
  read(name: PackageName, file: string): Promise<string>;
  remove(): Promise<void>;
}

/**
 * Packs `@plant-store/domain` and `@plant-store/client` with pnpm (as `pnpm publish` would), then
 * installs both tarballs with npm into a fresh ESM project holding `files`, beside their peers
 * (io-ts, fp-ts) and Node's types — nothing from the workspace.
 */
export const installPackedPackages = async (
  label: string,
  files: Readonly<Record<string, string>>,
): Promise<PackedProject> => {
  const project = await tempDir(label);
  const tarballs = new Map<PackageName, string>();
  for (const [name, dir] of [
    ['domain', paths.domainDir],
    ['client', paths.clientDir],
  ] as const) {
    await exec('pnpm', ['pack', '--pack-destination', project.path], { cwd: dir });
    const tarball = (await readdir(project.path)).find(
      (file) => file.startsWith(`plant-store-${name}-`) && file.endsWith('.tgz'),
    );
    if (tarball === undefined) throw new TypeError(`pnpm pack left no tarball of ${name} in ${project.path}`);
    tarballs.set(name, tarball);
    await mkdir(join(project.path, 'unpacked', name), { recursive: true });
    await exec('tar', ['-xzf', tarball, '-C', join('unpacked', name)], { cwd: project.path });
  }
  const tarballOf = (name: PackageName): string => tarballs.get(name) ?? '';
  await writeFile(
    join(project.path, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module' }, null, 2),
  );
  for (const [file, content] of Object.entries(files)) await writeFile(join(project.path, file), content);
  // The registry's answers come from npm's cache when it has them. Node's types at the floor of
  // `engines`.
  await exec(
    'npm',
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      '--prefer-offline',
      ...[...tarballs.values()].map((t) => `./${t}`),
      'io-ts@2',
      'fp-ts@2',
      '@types/node@22',
    ],
    { cwd: project.path, timeout: 240_000 },
  );
  return {
    path: project.path,
    list: async (name) => {
      const { stdout } = await exec('tar', ['-tzf', tarballOf(name)], { cwd: project.path });
      return stdout.trim().split('\n');
    },
    read: (name, file) => readFile(join(project.path, 'unpacked', name, file), 'utf8'),
    remove: () => project.remove(),
  };
};
