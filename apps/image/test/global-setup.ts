import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { docker, runCommand, type DockerSetup } from './support/docker.js';

const buildScript = fileURLToPath(new URL('../scripts/build-image.sh', import.meta.url));

/**
 * Waits for a build started before the tests (.ci/run) to end: it writes its exit status to the
 * file PLANT_STORE_IMAGE_PENDING names, and its output beside it (`<file>.log`).
 */
const pendingBuild = async (statusFile: string | undefined): Promise<void> => {
  if (statusFile === undefined || statusFile === '') return;
  const deadline = Date.now() + 30 * 60_000;
  for (;;) {
    const status = await readFile(statusFile, 'utf8').catch(() => undefined);
    if (status !== undefined && status.trim() !== '') {
      if (status.trim() === '0') return;
      const log = await readFile(`${statusFile}.log`, 'utf8').catch(() => '(no log)');
      throw new Error(`building the image failed (exit ${status.trim()}):\n${log.split('\n').slice(-40).join('\n')}`);
    }
    if (Date.now() > deadline) throw new Error(`the image build (${statusFile}) did not end within 30 minutes`);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
};

/**
 * Finds a Docker engine and the image to test: PLANT_STORE_IMAGE when set (.ci/run builds it
 * while the other tests run; see pendingBuild), else one built here from the root Dockerfile
 * (PLANT_STORE_NODE_IMAGE picks its base) and removed afterwards.
 */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  const engine = await docker(['version', '--format', '{{.Server.Version}}'], 15_000);
  if (engine.code !== 0) {
    project.provide('docker', {
      available: false,
      reason: `no Docker engine answers (${engine.stderr.trim().split('\n')[0] ?? 'docker version failed'})`,
    });
    return undefined;
  }
  const given = process.env['PLANT_STORE_IMAGE'];
  if (given !== undefined && given !== '') {
    await pendingBuild(process.env['PLANT_STORE_IMAGE_PENDING']);
    const found = await docker(['image', 'inspect', given], 15_000);
    if (found.code !== 0) throw new Error(`PLANT_STORE_IMAGE=${given} is not an image the engine has`);
    project.provide('docker', { available: true, image: given, builtHere: false } satisfies DockerSetup);
    return undefined;
  }
  const tag = `plant-store-test:${randomBytes(4).toString('hex')}`;
  const built = await runCommand('bash', [buildScript, tag], { timeoutMs: 20 * 60_000 });
  if (built.code !== 0) throw new Error(`building the image failed:\n${built.stderr}`);
  console.log(built.stdout.trim());
  project.provide('docker', { available: true, image: tag, builtHere: true });
  return async () => {
    await docker(['image', 'rm', '-f', tag]);
    await docker(['image', 'prune', '-f', '--filter', 'label=org.plant-store.stage=build']);
  };
}
