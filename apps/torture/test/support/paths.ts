import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../../', import.meta.url));

/**
 * Absolute paths of the built entry points the torture suites run as real processes.
 * TORTURE_SERVER_MAIN runs the suites against another build of the server (for example a
 * deliberately broken one compiled to another folder inside apps/server).
 */
export const paths = {
  root,
  serverMain: process.env['TORTURE_SERVER_MAIN'] ?? `${root}apps/server/dist/main.js`,
  tokensCli: `${root}apps/server/dist/tokens/cli.js`,
} as const;
