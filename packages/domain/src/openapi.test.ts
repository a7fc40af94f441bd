import * as E from 'fp-ts/lib/Either.js';
import type * as t from 'io-ts';
import { describe, expect, it } from 'vitest';
import { openApiDocument as doc } from './openapi.js';
import { CreatePlantRequest, CreatePlantResponse, Plant, PlantName, PlantPage, PlantTag } from './plant.js';
import { PlantId, PlantIdFromPath } from './plant-id.js';
import { ErrorBody, ListQuery } from './wire.js';

const schemas = doc.components.schemas;
const accepts = (codec: t.Mixed, value: unknown) => E.isRight(codec.decode(value));

/** Every `example`/`examples[*].value` in the document, with the JSON pointer-ish path it sits at. */
const examples = (node: unknown, path = '#'): Array<{ path: string; value: unknown }> => {
  if (typeof node !== 'object' || node === null) return [];
  const found: Array<{ path: string; value: unknown }> = [];
  for (const [key, value] of Object.entries(node)) {
    if (key === 'example') found.push({ path: `${path}/example`, value });
    else if (key === 'examples' && !Array.isArray(value)) {
      for (const [name, ex] of Object.entries(value as Record<string, { value: unknown }>)) found.push({ path: `${path}/examples/${name}`, value: ex.value });
    } else found.push(...examples(value, `${path}/${key}`));
  }
  return found;
};

describe('openApiDocument', () => {
  it('is OpenAPI 3.1 and JSON-serialisable', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(JSON.parse(JSON.stringify(doc))).toEqual(doc);
  });

  it('documents every route of the contract', () => {
    expect(Object.keys(doc.paths).sort()).toEqual(['/healthz', '/openapi.json', '/plants', '/plants/{id}', '/readyz']);
    expect(Object.keys(doc.paths['/plants']).sort()).toEqual(['get', 'post']);
    expect(Object.keys(doc.paths['/plants/{id}']).sort()).toEqual(['delete', 'get', 'parameters']);
  });

  it('agrees with PlantId on its bounds', () => {
    const { minimum, maximum } = schemas.PlantId;
    expect(accepts(PlantId, minimum)).toBe(true);
    expect(accepts(PlantId, maximum)).toBe(true);
    expect(accepts(PlantId, minimum - 1)).toBe(false);
    expect(accepts(PlantId, maximum + 1)).toBe(false);
  });

  it.each([
    ['PlantName', PlantName, schemas.PlantName],
    ['PlantTag', PlantTag, schemas.PlantTag],
  ] as const)('agrees with %s on lengths and characters', (_name, codec, schema) => {
    const pattern = new RegExp(schema.pattern, 'u');
    for (const s of ['a'.repeat(schema.minLength), '🌵'.repeat(schema.maxLength), 'a'.repeat(schema.maxLength)]) {
      expect(accepts(codec, s)).toBe(true);
      expect(pattern.test(s)).toBe(true);
    }
    for (const s of ['', '🌵'.repeat(schema.maxLength + 1)]) expect(accepts(codec, s)).toBe(false);
    for (const s of [' ', 'a\u0000', 'a\u001f', 'a\u007f', '\t']) {
      expect(accepts(codec, s)).toBe(false);
      expect(pattern.test(s)).toBe(false);
    }
  });

  it.each([
    ['CreatePlantRequest', CreatePlantRequest, schemas.CreatePlantRequest],
    ['CreatePlantResponse', CreatePlantResponse, schemas.CreatePlantResponse],
    ['Plant', Plant, schemas.Plant],
  ] as const)('agrees with %s on required and known members', (_name, codec, schema) => {
    const full: Record<string, unknown> = { id: 7, name: 'Fern', tag: 'green' };
    const minimal = Object.fromEntries(schema.required.map((key) => [key, full[key]]));
    const all = Object.fromEntries(Object.keys(schema.properties).map((key) => [key, full[key]]));
    expect(accepts(codec, minimal)).toBe(true);
    expect(accepts(codec, all)).toBe(true);
    for (const key of schema.required) {
      const { [key]: _dropped, ...rest } = minimal;
      expect(accepts(codec, rest)).toBe(false);
    }
    const withUnknown = accepts(codec, { ...all, unknownMember: 1 });
    expect(withUnknown).toBe(!('additionalProperties' in schema && schema.additionalProperties === false));
  });

  it('agrees with the list query on its bounds', () => {
    const [limit, after] = doc.paths['/plants'].get.parameters;
    const decode = (q: Record<string, string>) => E.isRight(ListQuery.decode(q));
    expect(decode({ limit: String(limit.schema.minimum), after: String(after.schema.minimum) })).toBe(true);
    expect(decode({ limit: String(limit.schema.maximum), after: String(after.schema.maximum) })).toBe(true);
    expect(decode({ limit: String(limit.schema.minimum - 1) })).toBe(false);
    expect(decode({ limit: String(limit.schema.maximum + 1) })).toBe(false);
    expect(decode({ after: String(after.schema.maximum + 1) })).toBe(false);
    expect(ListQuery.decode({})).toEqual(E.right({ limit: limit.schema.default, after: after.schema.default }));
  });

  it('agrees with PlantIdFromPath on the path parameter', () => {
    const pattern = new RegExp(doc.paths['/plants/{id}'].parameters[0].schema.pattern);
    for (const s of ['1', '7', '9007199254740991', '0', '07', '-1', '1.5', '']) {
      if (!pattern.test(s)) expect(accepts(PlantIdFromPath, s)).toBe(false);
    }
    expect(accepts(PlantIdFromPath, doc.paths['/plants/{id}'].parameters[0].example)).toBe(true);
  });

  it('has examples that decode with the codecs of where they stand', () => {
    const found = examples(doc);
    expect(found.length).toBeGreaterThan(10);
    for (const { path, value } of found) {
      const body = /\/(requestBody|responses\/(\d+))\/content\/application\/json\//.exec(path);
      if (body === null) continue;
      const status = body[2] === undefined ? undefined : Number(body[2]);
      const codec =
        status === undefined
          ? CreatePlantRequest
          : status >= 400
            ? ErrorBody
            : status === 201
              ? CreatePlantResponse
              : path.includes('/plants/{id}/')
                ? Plant
                : path.includes('/plants/')
                  ? PlantPage
                  : undefined;
      if (codec !== undefined) expect(accepts(codec, value), path).toBe(true);
      if (status !== undefined && status >= 400) expect((value as { error: number }).error, path).toBe(status);
    }
    const location = doc.paths['/plants'].post.responses['201'].headers.Location.schema.example;
    expect(PlantIdFromPath.decode(/^\/plants\/(.*)$/.exec(location)?.[1])._tag).toBe('Right');
    const plantExamples = found.filter(({ path }) => path.includes('/responses/200/content') && !path.includes('health'));
    expect(plantExamples.length).toBeGreaterThan(0);
  });
});
