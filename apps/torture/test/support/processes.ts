import { startServer as startServerProcess, type ServerProcess, type StartServerOptions } from '@plant-store/testkit';
import { paths } from './paths.js';

export { freePort, rssBytes, runNode, tempDir, type RunResult, type ServerProcess } from '@plant-store/testkit';

/** Starts this workspace's built server (or `options.main`) as a real process; see testkit's startServer. */
export const startServer = (
  env: Record<string, string>,
  options: Partial<StartServerOptions> = {},
): Promise<ServerProcess> => startServerProcess(env, { main: paths.serverMain, ...options });
