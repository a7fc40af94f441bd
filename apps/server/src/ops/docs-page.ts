import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * The API reference at `GET /docs`: Swagger UI (swagger-ui-dist, the renderer the Swagger
 * Petstore itself ships, with no runtime dependencies) rendering this server's own
 * `/openapi.json`. Every file comes from the installed package, read once at start-up: nothing is
 * fetched from a CDN, so the page works offline, and its Content-Security-Policy allows nothing
 * from elsewhere. Swagger UI's online validator badge is off (it would send the document away).
 */

export interface DocsAsset {
  readonly type: string;
  readonly body: Buffer;
}

/** `default-src 'none'` and then only this origin, for exactly what the page uses. */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  // Swagger UI (React) sets style attributes on elements; no style sheet comes from elsewhere.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const page = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Plant Store API reference</title>
    <link rel="stylesheet" href="/docs/swagger-ui.css">
    <link rel="icon" type="image/png" href="/docs/favicon-32x32.png">
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="/docs/swagger-ui-bundle.js"></script>
    <script src="/docs/init.js"></script>
  </body>
</html>
`;

// A file, not an inline script: the policy allows scripts from this origin only.
const init = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
});
`;

let loaded: ReadonlyMap<string, DocsAsset> | undefined;

/** The page and its assets by request path, loaded once from the installed swagger-ui-dist. */
export const loadDocsAssets = (): ReadonlyMap<string, DocsAsset> => (loaded ??= readAssets());

const readAssets = (): ReadonlyMap<string, DocsAsset> => {
  const dist = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const file = (name: string, type: string): DocsAsset => ({ type, body: readFileSync(join(dist, name)) });
  return new Map([
    ['/docs', { type: 'text/html; charset=utf-8', body: Buffer.from(page) }],
    ['/docs/init.js', { type: 'text/javascript; charset=utf-8', body: Buffer.from(init) }],
    ['/docs/swagger-ui.css', file('swagger-ui.css', 'text/css; charset=utf-8')],
    ['/docs/swagger-ui-bundle.js', file('swagger-ui-bundle.js', 'text/javascript; charset=utf-8')],
    ['/docs/favicon-32x32.png', file('favicon-32x32.png', 'image/png')],
  ]);
};
