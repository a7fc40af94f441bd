import { createRequire } from 'node:module';

/** `plant-store-webhooks/<the server package's version>`, the User-Agent of every attempt. */
export const webhookUserAgent = (): string => {
  // ../../package.json from src/webhooks and from dist/webhooks alike.
  const { version } = createRequire(import.meta.url)('../../package.json') as { version: string };
  return `plant-store-webhooks/${version}`;
};
