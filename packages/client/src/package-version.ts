import { readFileSync } from 'node:fs';

let cached: string | undefined;

/** This package's version, read once from its package.json (beside `src/` and `dist/`). */
export const packageVersion = (): string => {
  if (cached !== undefined) return cached;
  try {
    const json = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: unknown };
    cached = typeof json.version === 'string' ? json.version : 'unknown';
  } catch {
    cached = 'unknown';
  }
  return cached;
};
