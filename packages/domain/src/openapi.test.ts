import * as E from 'fp-ts/lib/Either.js';
import type * as t from 'io-ts';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { openApiDocument as doc, TEXT_PATTERN } from './openapi.js';
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
    expect(Object.keys(doc.paths).sort()).toEqual(['/docs', '/healthz', '/openapi.json', '/plants', '/plants/{id}', '/readyz']);
    expect(Object.keys(doc.paths['/plants']).sort()).toEqual(['get', 'head', 'options', 'post']);
    expect(Object.keys(doc.paths['/plants/{id}']).sort()).toEqual(['delete', 'get', 'head', 'options', 'parameters']);
    for (const path of ['/docs', '/openapi.json', '/healthz', '/readyz'] as const) expect(Object.keys(doc.paths[path]).sort()).toEqual(['get', 'head', 'options']);
  });

  it('lists in each OPTIONS answer exactly the methods its path documents', () => {
    for (const item of Object.values(doc.paths)) {
      const documented = Object.keys(item).filter((key) => key !== 'parameters').map((method) => method.toUpperCase());
      const allow = item.options.responses['204'].headers.Allow.schema.enum[0]?.split(', ') ?? [];
      expect([...allow].sort()).toEqual(documented.sort());
    }
  });

  it('writes no pattern with \\s, \\w, \\d or a look-around, so that every dialect reads it alike', () => {
    const patterns: string[] = [];
    const walk = (node: unknown): void => {
      if (typeof node !== 'object' || node === null) return;
      for (const [key, value] of Object.entries(node)) {
        if (key === 'pattern' && typeof value === 'string') patterns.push(value);
        else walk(value);
      }
    };
    walk(doc);
    expect(patterns.length).toBeGreaterThan(3);
    for (const pattern of patterns) expect(pattern).not.toMatch(/\\[sSwWdD]|\(\?/);
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

  it('types the path id as the integer PlantIdFromPath accepts, bounds included', () => {
    const [parameter] = doc.paths['/plants/{id}'].parameters;
    expect(parameter.schema.type).toBe('integer');
    const { minimum, maximum } = parameter.schema;
    for (const n of [minimum, maximum, parameter.example]) expect(accepts(PlantIdFromPath, String(n))).toBe(true);
    for (const n of [minimum - 1, maximum + 1, 10 ** 16]) expect(accepts(PlantIdFromPath, String(n))).toBe(false);
  });

  it('has a text pattern that judges every well-formed string as the codecs do', () => {
    const pattern = new RegExp(TEXT_PATTERN, 'u');
    const characters = fc.oneof(
      fc.constantFrom(...' \t\n\u000b\f\r\u0085\u00a0\u1680\u2000\u200a\u200b\u2028\u2029\u202f\u205f\u3000\ufeff\u0000\u001f\u007f\u0080'),
      fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
    );
    fc.assert(
      fc.property(fc.array(characters, { minLength: 1, maxLength: 6 }), (parts) => pattern.test(parts.join('')) === accepts(PlantTag, parts.join(''))),
      { numRuns: 500, seed: 17 },
    );
    expect(pattern.test('\u0085')).toBe(true);
  }, 60_000);

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
