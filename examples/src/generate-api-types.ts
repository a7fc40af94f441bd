// Makes src/generated/plant-store-api.ts again from a running server's GET /openapi.json, with
// openapi-typescript: the types generated-client.ts calls the API with.
//
//   pnpm -C examples generate              (a server running; PLANT_STORE_URL optional)
//
// With `--check` it writes nothing and exits 1 when the file differs from what the server's
// document gives now (the examples' tests run it against a fresh server).
import { readFileSync, writeFileSync } from 'node:fs';
import openapiTS, { astToString } from 'openapi-typescript';
import { baseUrl } from './support.js';

// From dist/ (where this runs) to the source file.
const target = new URL('../src/generated/plant-store-api.ts', import.meta.url);
const header = `// Generated from the Plant Store's GET /openapi.json by openapi-typescript: do not edit.
// Make it again with \`pnpm -C examples generate\` against a running server.
`;

const response = await fetch(new URL('/openapi.json', baseUrl));
if (!response.ok) throw new Error(`GET /openapi.json answered ${response.status}`);
const document = (await response.json()) as Parameters<typeof openapiTS>[0];
const generated = header + astToString(await openapiTS(document, { silent: true }));

if (process.argv.includes('--check')) {
  const current = readFileSync(target, 'utf8');
  if (current !== generated) {
    console.error(`${target.pathname} is out of date with ${baseUrl}/openapi.json: run \`pnpm -C examples generate\``);
    process.exit(1);
  }
  console.log(`${target.pathname} matches ${baseUrl}/openapi.json`);
} else {
  writeFileSync(target, generated);
  console.log(`wrote ${target.pathname} from ${baseUrl}/openapi.json`);
}
