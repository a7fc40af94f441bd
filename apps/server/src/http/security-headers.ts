import type { ServerResponse } from 'node:http';

/**
 * The OWASP REST Security Cheat Sheet's response headers (docs/reference/api.md, headers and
 * CORS), one place for the app and for the answers Node's parser makes before it runs:
 * - `X-Content-Type-Options: nosniff` on every response;
 * - `Content-Security-Policy` forbidding everything on JSON (and empty) responses: nothing here is
 *   a page to render or frame (the docs page, when it exists, sets its own);
 * - `Cache-Control: no-store` on every `/plants` response: it is per-caller data.
 */
export const SECURITY_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
} as const;

export const NO_STORE = { 'Cache-Control': 'no-store' } as const;

/** True for a request target under `/plants` (`/plants`, `/plants/…`, `/plants?…`). */
export const isPlantsTarget = (url: string | undefined): boolean =>
  url !== undefined && /^\/plants(?:[/?]|$)/.test(url);

/** Sets the headers of the request for `url` (request-frame.ts does, before anything else runs). */
export const setSecurityHeaders = (res: ServerResponse, url: string | undefined): void => {
  res.setHeader('X-Content-Type-Options', SECURITY_HEADERS['X-Content-Type-Options']);
  res.setHeader('Content-Security-Policy', SECURITY_HEADERS['Content-Security-Policy']);
  if (isPlantsTarget(url)) res.setHeader('Cache-Control', NO_STORE['Cache-Control']);
};
