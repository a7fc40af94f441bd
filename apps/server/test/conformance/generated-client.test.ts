/**
 * What a client generated from the served document looks like to its user: the types
 * `openapi-typescript` makes of `GET /openapi.json`, used through `openapi-fetch` by a small
 * program that the TypeScript compiler must accept — `id` a number, `Location` a required string,
 * the error body typed — and calls that break the document, each marked `@ts-expect-error`, so that
 * one which compiles (an unused directive) fails the test.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../http/support.js';

// Inside the package's node_modules, so that the program resolves `openapi-fetch` as a user's would.
const dir = join(
  dirname(fileURLToPath(import.meta.url)),
  '../../node_modules/.cache/generated-client',
  String(process.pid),
);

const program = `
import createClient from 'openapi-fetch';
import type { components, paths } from './schema.js';

const client = createClient<paths>({ baseUrl: 'http://127.0.0.1:1' });

type Created = paths['/plants']['post']['responses'][201];
type Replaced = paths['/plants/{id}']['put']['responses'][200];
type ReplaceBody = paths['/plants/{id}']['put']['requestBody']['content']['application/json'];
type CreateBody = paths['/plants']['post']['requestBody']['content']['application/json'];
type PlantIdParameter = paths['/plants/{id}']['get']['parameters']['path']['id'];
type Is<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

export const idIsANumber: Is<PlantIdParameter, number> = true;
export const locationIsARequiredString: Is<Created['headers']['Location'], string> = true;
export const changeSeqIsARequiredNumber: Is<Replaced['headers']['X-Change-Seq'], number> = true;
export const errorBody: components['schemas']['Error'] = { error: 404, message: 'no plant with id 7' };

export const use = async (): Promise<string> => {
  const found = await client.GET('/plants/{id}', { params: { path: { id: 7 } } });
  if (found.data !== undefined) return found.data.name + String(found.data.id) + (found.data.tag ?? '');
  if (found.error !== undefined) return String(found.error.error) + found.error.message;
  const created = await client.POST('/plants', { body: { name: 'Fern', tag: 'green', id: 42 } });
  if (created.data !== undefined) return created.data.name;
  const page = await client.GET('/plants', { params: { query: { limit: 10, after: 0 } } });
  await client.DELETE('/plants/{id}', { params: { path: { id: 7 } } });
  const replaced = await client.PUT('/plants/{id}', { params: { path: { id: 7 } }, body: { name: 'Fern' } });
  if (replaced.data !== undefined) return replaced.data.name + String(replaced.data.id);
  return String(page.data?.length);
};

export const misuse = async (): Promise<void> => {
  // @ts-expect-error the path id is a number, not a string
  await client.GET('/plants/{id}', { params: { path: { id: '7' } } });
  // @ts-expect-error name is required
  await client.POST('/plants', { body: { tag: 'green' } });
  // (openapi-fetch's generic call lets an extra member through; the generated body type does not.)
  // @ts-expect-error no member colour
  const extra: CreateBody = { name: 'Fern', colour: 'green' };
  // @ts-expect-error a tag is a string
  const numericTag: CreateBody = { name: 'Fern', tag: 7 };
  void [extra, numericTag];
  // @ts-expect-error limit is an integer
  await client.GET('/plants', { params: { query: { limit: 'ten' } } });
  // @ts-expect-error no such route
  await client.GET('/plant/{id}', { params: { path: { id: 7 } } });
  // @ts-expect-error no PUT on /plants
  await client.PUT('/plants', { body: { name: 'Fern' } });
  // @ts-expect-error a PUT body has no id (the path gives it)
  const withId: ReplaceBody = { id: 7, name: 'Fern' };
  void withId;
};
`;

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
  mkdirSync(dir, { recursive: true });
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await server?.close();
});

describe('a client generated from the served document', () => {
  it('types id as a number, Location as required and the error body, and refuses calls that break the document', async () => {
    const served = (await (await fetch(`${server.url}/openapi.json`)).json()) as Parameters<typeof openapiTS>[0];
    writeFileSync(join(dir, 'schema.ts'), astToString(await openapiTS(served, { silent: true })));
    writeFileSync(join(dir, 'program.ts'), program);
    const compiled = ts.createProgram([join(dir, 'program.ts')], {
      strict: true,
      exactOptionalPropertyTypes: true,
      noUncheckedIndexedAccess: true,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
      skipLibCheck: true,
      noEmit: true,
    });
    const problems = ts
      .getPreEmitDiagnostics(compiled)
      .map(
        (d) =>
          `${d.file === undefined ? '' : `${d.file.fileName.slice(dir.length + 1)}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}: `}${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`,
      );
    expect(problems).toEqual([]);
  });
});
