import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { describeUnlessMissing, until } from '@plant-store/testkit';
import { describe, inject } from 'vitest';

/** What the global set-up found: a Docker engine to talk to and the image to test, or why not. */
export type DockerSetup =
  | { readonly available: true; readonly image: string; readonly builtHere: boolean }
  | { readonly available: false; readonly reason: string };

declare module 'vitest' {
  export interface ProvidedContext {
    docker: DockerSetup;
  }
}

export interface CommandResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a command to completion and collects its output; never throws for a non-zero exit. */
export const runCommand = (
  file: string,
  args: readonly string[],
  options: { readonly timeoutMs?: number | undefined; readonly env?: NodeJS.ProcessEnv } = {},
): Promise<CommandResult> =>
  new Promise((resolve) => {
    execFile(
      file,
      args,
      { timeout: options.timeoutMs ?? 60_000, maxBuffer: 64 * 1024 * 1024, env: options.env ?? process.env },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
        resolve({ code, stdout, stderr: error !== null && stderr === '' ? error.message : stderr });
      },
    );
  });

/** Runs `docker …args` to completion; never throws for a non-zero exit (see `dockerOk`). */
export const docker = (args: readonly string[], timeoutMs?: number): Promise<CommandResult> =>
  runCommand('docker', args, { timeoutMs });

/** Runs `docker …args` and returns its trimmed stdout; a non-zero exit throws with docker's message. */
export const dockerOk = async (args: readonly string[], timeoutMs?: number): Promise<string> => {
  const result = await docker(args, timeoutMs);
  if (result.code !== 0) throw new Error(`docker ${args.join(' ')} exited ${result.code}: ${result.stderr.trim()}`);
  return result.stdout.trim();
};

/**
 * Like `describe`, for tests that need a Docker engine and the image: where the global set-up found
 * none they are skipped with one line saying why, except under CI=true, where they fail.
 */
export const describeImage = (name: string, fn: (image: string) => void): void => {
  const setup = inject('docker');
  if (setup.available) describe(name, () => fn(setup.image));
  else describeUnlessMissing('image', setup.reason, name, () => fn(''));
};

/** A name no other run uses, for containers and volumes. */
export const uniqueName = (what: string): string => `plant-store-test-${what}-${randomBytes(4).toString('hex')}`;

/**
 * Containers and volumes a test file made, removed in its `afterAll` whatever state they are in.
 */
export class DockerResources {
  private readonly containers = new Set<string>();
  private readonly volumes = new Set<string>();

  async volume(what: string): Promise<string> {
    const name = uniqueName(what);
    await dockerOk(['volume', 'create', name]);
    this.volumes.add(name);
    return name;
  }

  /** `docker run -d …args image …command`; returns the container's name. */
  async run(image: string, args: readonly string[], command: readonly string[] = []): Promise<string> {
    const name = uniqueName('c');
    this.containers.add(name);
    await dockerOk(['run', '-d', '--name', name, ...args, image, ...command]);
    return name;
  }

  async removeAll(): Promise<void> {
    if (this.containers.size > 0) await docker(['rm', '-f', '-v', ...this.containers]);
    if (this.volumes.size > 0) await docker(['volume', 'rm', '-f', ...this.volumes]);
    this.containers.clear();
    this.volumes.clear();
  }
}

/** The container's log so far, stdout and stderr together. */
export const logs = async (container: string): Promise<string> => {
  const result = await docker(['logs', container]);
  return result.stdout + result.stderr;
};

/** Waits for the server in `container` to log that it listens, and returns its log until then. */
export const listening = (container: string, timeoutMs = 30_000): Promise<string> =>
  until(
    `${container} to listen`,
    async () => {
      const text = await logs(container);
      if (text.includes('"msg":"listening"')) return text;
      if ((await inspect(container, '{{.State.Running}}')) !== 'true')
        throw new Error(`${container} exited before it listened:\n${text}`);
      return undefined;
    },
    timeoutMs,
    { everyMs: 100 },
  );

/** The first-run token the server printed in its log. */
export const firstRunToken = (log: string): string => {
  const token = /^ {4}(pst_[A-Za-z0-9_-]{20,})$/m.exec(log)?.[1];
  if (token === undefined) throw new Error(`no first-run token in the log:\n${log}`);
  return token;
};

/** The host port published for the container's port 3000 (`-p 127.0.0.1::3000`). */
export const publishedUrl = async (container: string): Promise<string> => {
  const mapping = await dockerOk(['port', container, '3000/tcp']);
  const port = /:(\d+)$/m.exec(mapping)?.[1];
  if (port === undefined) throw new Error(`no published port in "${mapping}"`);
  return `http://127.0.0.1:${port}`;
};

/** `docker inspect --format <template> <container>`. */
export const inspect = (container: string, template: string): Promise<string> =>
  dockerOk(['inspect', '--format', template, container]);

/** A token made with the image's token CLI inside `container`, against the store it serves. */
export const createToken = async (container: string, name: string, scopes: readonly string[]): Promise<string> => {
  const out = await dockerOk([
    'exec',
    container,
    'plant-store-tokens',
    'create',
    '--name',
    name,
    ...scopes.flatMap((scope) => ['--scope', scope]),
  ]);
  const token = /\b(pst_[A-Za-z0-9_-]{20,})\b/.exec(out)?.[1];
  if (token === undefined) throw new Error(`no token in the CLI's output: ${out}`);
  return token;
};
