import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../../', import.meta.url));

/** Absolute paths of the built entry points the end-to-end tests run as real processes. */
export const paths = {
  root,
  serverMain: `${root}apps/server/dist/main.js`,
  tokensCli: `${root}apps/server/dist/tokens/cli.js`,
  webhooksCli: `${root}apps/server/dist/webhooks/cli.js`,
  dataCli: `${root}apps/server/dist/data/cli.js`,
  clientCli: `${root}packages/client/dist/cli.js`,
  domainDir: `${root}packages/domain`,
  clientDir: `${root}packages/client`,
  serverDir: `${root}apps/server`,
} as const;
