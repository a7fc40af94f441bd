import { serverVersion } from '../server-version.js';

/** `plant-store-webhooks/<the server package's version>`, the User-Agent of every attempt. */
export const webhookUserAgent = (): string => `plant-store-webhooks/${serverVersion()}`;
