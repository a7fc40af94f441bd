import { createRequire } from 'node:module';

/** The server package's version (package.json: ../package.json from src and from dist alike). */
export const serverVersion = (): string =>
  (createRequire(import.meta.url)('../package.json') as { version: string }).version;
