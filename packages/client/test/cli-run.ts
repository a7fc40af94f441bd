import { runCli, type CliIo } from '../src/run-cli.js';
import { TOKEN, type FakeServer } from './fake-server.js';

export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `plant-store <argv>` against `server` with its URL and the write token in the environment,
 * and returns the exit code and what was written. `io` replaces stdout, stderr or the signal (what
 * it replaces is not captured), and its `env` is laid over the server's (undefined unsets).
 */
export const runCliAgainst = async (
  server: FakeServer,
  argv: readonly string[],
  io: Partial<CliIo> = {},
): Promise<CliRun> => {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, {
    stdout: { write: (chunk: string) => (stdout += chunk) },
    stderr: { write: (chunk: string) => (stderr += chunk) },
    ...io,
    env: { PLANT_STORE_URL: server.url, PLANT_STORE_TOKEN: TOKEN, ...io.env },
  });
  return { code, stdout, stderr };
};
