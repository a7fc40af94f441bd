import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { docker, runCommand, type DockerSetup } from './support/docker.js';

const buildScript = fileURLToPath(new URL('../scripts/build-image.sh', import.meta.url));

/**
 * Finds a Docker engine and the image to test: PLANT_STORE_IMAGE when set (.ci/run builds it
 * before the tests), else one built here from the root Dockerfile
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
