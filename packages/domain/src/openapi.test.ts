import * as E from 'fp-ts/lib/Either.js';
import type * as t from 'io-ts';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { openApiDocument as doc, TEXT_PATTERN } from './openapi.js';
import {
  CreatePlantRequest,
  CreatePlantResponse,
  Plant,
  PlantName,
  PlantPage,
  PlantTag,
  ReplacePlantRequest,
} from './plant.js';
import { PlantId, PlantIdFromPath } from './plant-id.js';
import { ErrorBody, ListQuery } from './wire.js';
import { ChangePage } from './change.js';
import { CreatePlantsRequest, CreatePlantsResponse } from './plant-batch.js';
import { WEBHOOK_EVENT_TYPES, WebhookEvent, webhookEventBody, WebhookId, WebhookTimestamp } from './webhook-event.js';

const schemas = doc.components.schemas;
const accepts = (codec: t.Mixed, value: unknown) => E.isRight(codec.decode(value));

/** Every `example`/`examples[*].value` in the document, with the JSON pointer-ish path it sits at. */
const examples = (node: unknown, path = '#'): Array<{ path: string; value: unknown }> => {
  if (typeof node !== 'object' || node === null) return [];
  const found: Array<{ path: string; value: unknown }> = [];
  for (const [key, value] of Object.entries(node)) {
    if (key === 'example') found.push({ path: `${path}/example`, value });
    else if (key === 'examples' && !Array.isArray(value)) {
      for (const [name, ex] of Object.entries(value as Record<string, { value: unknown }>))
        found.push({ path: `${path}/examples/${name}`, value: ex.value });
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
    expect(Object.keys(doc.paths).sort()).toEqual([
      '/docs',
      '/healthz',
      '/openapi.json',
      '/plants',
      '/plants/batch',
      '/plants/changes',
      '/plants/{id}',
      '/readyz',
    ]);
    expect(Object.keys(doc.paths['/plants/changes']).sort()).toEqual(['get', 'head', 'options']);
    expect(Object.keys(doc.paths['/plants/batch']).sort()).toEqual(['options', 'post']);
    expect(Object.keys(doc.paths['/plants']).sort()).toEqual(['get', 'head', 'options', 'post']);
    expect(Object.keys(doc.paths['/plants/{id}']).sort()).toEqual([
      'delete',
      'get',
      'head',
      'options',
      'parameters',
      'patch',
      'put',
    ]);
    for (const path of ['/docs', '/openapi.json', '/healthz', '/readyz'] as const)
      expect(Object.keys(doc.paths[path]).sort()).toEqual(['get', 'head', 'options']);
  });

  it('lists in each OPTIONS answer exactly the methods its path documents', () => {
    for (const item of Object.values(doc.paths)) {
      const documented = Object.keys(item)
        .filter((key) => key !== 'parameters')
        .map((method) => method.toUpperCase());
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
    expect(ListQuery.decode({})).toEqual(
      E.right({ limit: limit.schema.default, after: after.schema.default, sort: 'id' }),
    );
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
      fc.constantFrom(
        ...' \t\n\u000b\f\r\u0085\u00a0\u1680\u2000\u200a\u200b\u2028\u2029\u202f\u205f\u3000\ufeff\u0000\u001f\u007f\u0080',
      ),
      fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
    );
    fc.assert(
      fc.property(
        fc.array(characters, { minLength: 1, maxLength: 6 }),
        (parts) => pattern.test(parts.join('')) === accepts(PlantTag, parts.join('')),
      ),
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
      const put = path.startsWith('#/paths//plants/{id}/put/');
      const batch = path.includes('/plants/batch/');
      const codec = path.startsWith('#/webhooks/')
        ? WebhookEvent
        : batch && (status === undefined || status === 201)
          ? status === undefined
            ? CreatePlantsRequest
            : CreatePlantsResponse
          : status === undefined
            ? put
              ? ReplacePlantRequest
              : CreatePlantRequest
            : status >= 400
              ? ErrorBody
              : status === 201 && !put
                ? CreatePlantResponse
                : path.includes('/plants/{id}/')
                  ? Plant
                  : path.includes('/plants/changes/')
                    ? ChangePage
                    : path.includes('/plants/')
                      ? PlantPage
                      : undefined;
      if (codec !== undefined) expect(accepts(codec, value), path).toBe(true);
      if (status !== undefined && status >= 400) expect((value as { error: number }).error, path).toBe(status);
    }
    const location = doc.paths['/plants'].post.responses['201'].headers.Location.schema.example;
    expect(PlantIdFromPath.decode(/^\/plants\/(.*)$/.exec(location)?.[1])._tag).toBe('Right');
    const plantExamples = found.filter(
      ({ path }) => path.includes('/responses/200/content') && !path.includes('health'),
    );
    expect(plantExamples.length).toBeGreaterThan(0);
  });
});

/**
 * A strict validator for the JSON Schema keywords this document uses, enough to check payloads
 * against the webhook schemas without Ajv (the domain package has no dependency on it). Any
 * other keyword fails the test, so a schema cannot grow a rule this check silently ignores.
 */
const annotations = new Set(['description', 'example', 'discriminator', 'format']);
const validate = (schema: unknown, value: unknown, path = 'value'): string[] => {
  const s = schema as Record<string, unknown>;
  if (typeof s['$ref'] === 'string') {
    const name = /^#\/components\/schemas\/(.+)$/.exec(s['$ref'])?.[1];
    const target = name === undefined ? undefined : (schemas as Record<string, unknown>)[name];
    if (target === undefined) return [`${path}: unresolvable $ref ${s['$ref']}`];
    return validate(target, value, path);
  }
  const problems: string[] = [];
  const isObject = typeof value === 'object' && value !== null && !Array.isArray(value);
  for (const [keyword, rule] of Object.entries(s)) {
    if (annotations.has(keyword)) continue;
    switch (keyword) {
      case 'type': {
        const ok =
          rule === 'object'
            ? isObject
            : rule === 'integer'
              ? Number.isInteger(value)
              : rule === 'string'
                ? typeof value === 'string'
                : rule === 'array'
                  ? Array.isArray(value)
                  : false;
        if (!ok) problems.push(`${path}: not ${String(rule)}`);
        break;
      }
      case 'const':
        if (value !== rule) problems.push(`${path}: not ${JSON.stringify(rule)}`);
        break;
      case 'enum':
        if (!(rule as unknown[]).includes(value)) problems.push(`${path}: not in enum`);
        break;
      case 'pattern':
        if (typeof value === 'string' && !new RegExp(rule as string, 'u').test(value))
          problems.push(`${path}: does not match ${String(rule)}`);
        break;
      case 'minLength':
      case 'maxLength':
        if (typeof value === 'string') {
          const length = [...value].length;
          if (keyword === 'minLength' ? length < (rule as number) : length > (rule as number))
            problems.push(`${path}: ${keyword}`);
        }
        break;
      case 'minimum':
      case 'maximum':
        if (typeof value === 'number' && (keyword === 'minimum' ? value < (rule as number) : value > (rule as number)))
          problems.push(`${path}: ${keyword}`);
        break;
      case 'required':
        if (isObject)
          for (const key of rule as string[]) if (!(key in value)) problems.push(`${path}.${key}: required`);
        break;
      case 'properties':
        if (isObject) {
          for (const [key, sub] of Object.entries(rule as Record<string, unknown>)) {
            if (key in value)
              problems.push(...validate(sub, (value as Record<string, unknown>)[key], `${path}.${key}`));
          }
        }
        break;
      case 'additionalProperties':
        if (isObject && rule === false) {
          const known = Object.keys((s['properties'] as object | undefined) ?? {});
          for (const key of Object.keys(value)) if (!known.includes(key)) problems.push(`${path}.${key}: not allowed`);
        }
        break;
      case 'oneOf': {
        const passing = (rule as unknown[]).filter((sub) => validate(sub, value, path).length === 0).length;
        if (passing !== 1) problems.push(`${path}: matches ${passing} of oneOf`);
        break;
      }
      default:
        throw new TypeError(`the test validator does not know the keyword ${keyword}`);
    }
  }
  return problems;
};

describe('openApiDocument webhooks', () => {
  const name = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 });
  const timestamp = fc
    .date({ min: new Date(0), max: new Date('9999-12-31T23:59:59.999Z'), noInvalidDate: true })
    .map((d) => d.toISOString());
  const id = fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER });
  /** Events as the codec has them; inputs the text rule refuses are dropped. */
  const events = fc
    .oneof(
      fc.record({
        type: fc.constant('plant.created'),
        timestamp,
        data: fc.record({ id, name, tag: name }, { requiredKeys: ['id', 'name'] }),
      }),
      fc.record({ type: fc.constant('plant.deleted'), timestamp, data: fc.record({ id }) }),
    )
    .map((input) => WebhookEvent.decode(input))
    .filter(E.isRight)
    .map((decoded) => decoded.right);

  it('has one webhook per event type, each a POST', () => {
    expect(Object.keys(doc.webhooks).sort()).toEqual([...WEBHOOK_EVENT_TYPES].sort());
    for (const type of WEBHOOK_EVENT_TYPES) expect(Object.keys(doc.webhooks[type])).toEqual(['post']);
    expect(doc.tags.map((tag) => tag.name)).toContain('webhooks');
  });

  it.each(WEBHOOK_EVENT_TYPES)('describes %s: its payload schema, the signature headers and the answers', (type) => {
    const post = doc.webhooks[type].post;
    expect(post.tags).toEqual(['webhooks']);
    expect(post.security).toEqual([]);
    const schema = post.requestBody.content['application/json'].schema;
    expect(validate(schema, post.requestBody.content['application/json'].example)).toEqual([]);
    const target = (schemas as Record<string, { properties?: { type?: { const?: string } } }>)[
      schema.$ref.replace('#/components/schemas/', '')
    ];
    expect(target?.properties?.type?.const).toBe(type);
    const parameters = post.parameters.map(
      ({ $ref }) =>
        doc.components.parameters[
          $ref.replace('#/components/parameters/', '') as keyof typeof doc.components.parameters
        ],
    );
    expect(parameters.map((p) => [p.name, p.in, p.required])).toEqual([
      ['webhook-id', 'header', true],
      ['webhook-timestamp', 'header', true],
      ['webhook-signature', 'header', true],
      ['User-Agent', 'header', true],
    ]);
    expect(Object.keys(post.responses).sort()).toEqual(['2XX', '410', 'default']);
    expect(post.responses['410'].description).toMatch(/disables the endpoint/);
  });

  it('names the Standard Webhooks v1 scheme in the signature header', () => {
    const { description, schema, example } = doc.components.parameters.WebhookSignature;
    expect(description).toContain('`v1,<signature>`');
    expect(description).toContain('`<webhook-id>.<webhook-timestamp>.<body>`');
    expect(description).toContain('HMAC-SHA256');
    expect(description).toMatch(/space-separated/);
    const pattern = new RegExp(schema.pattern);
    expect(pattern.test(example)).toBe(true);
    expect(pattern.test(`${example} ${example}`)).toBe(true);
    expect(pattern.test(`${example} ${example} ${example}`)).toBe(false);
    expect(pattern.test('v1a,abc')).toBe(false);
  });

  it('signs, in its worked example, the body webhookEventBody makes of the plant.created example', () => {
    const { description } = doc.components.parameters.WebhookSignature;
    const example = WebhookEvent.decode(
      doc.webhooks['plant.created'].post.requestBody.content['application/json'].example,
    );
    if (E.isLeft(example)) throw new TypeError('the plant.created example does not decode');
    expect(description).toContain(`the body \`${webhookEventBody(example.right)}\``);
    expect(description).toContain(`\`webhook-id: ${doc.components.parameters.WebhookId.example}\``);
    expect(description).toContain(`\`webhook-timestamp: ${doc.components.parameters.WebhookTimestamp.example}\``);
    expect(description).toContain(`the signature is \`${doc.components.parameters.WebhookSignature.example}\``);
  });

  it('agrees with WebhookId on the webhook-id header', () => {
    const pattern = new RegExp(doc.components.parameters.WebhookId.schema.pattern);
    const samples = [
      'msg_a',
      `msg_${'a'.repeat(64)}`,
      `msg_${'a'.repeat(65)}`,
      'msg_',
      'msg_a-b',
      'evt_a',
      doc.components.parameters.WebhookId.example,
    ];
    for (const sample of samples) expect(pattern.test(sample), sample).toBe(accepts(WebhookId, sample));
  });

  it('agrees with WebhookTimestamp on the pattern of the payload timestamp', () => {
    const pattern = new RegExp(schemas.WebhookTimestamp.pattern);
    for (const sample of ['2026-11-24T10:00:00.123Z', schemas.WebhookTimestamp.example, '1970-01-01T00:00:00.000Z']) {
      expect(pattern.test(sample) && accepts(WebhookTimestamp, sample), sample).toBe(true);
    }
    for (const sample of ['2026-11-24T10:00:00Z', '2026-11-24T10:00:00.123+00:00', '2026-11-24T10:00:00.1234Z']) {
      expect(pattern.test(sample) || accepts(WebhookTimestamp, sample), sample).toBe(false);
    }
  });

  it('has payload schemas that accept every body webhookEventBody makes, by its own type and as WebhookEvent', () => {
    fc.assert(
      fc.property(events, (event) => {
        const body = JSON.parse(webhookEventBody(event)) as unknown;
        const own = doc.webhooks[event.type].post.requestBody.content['application/json'].schema;
        expect(validate(own, body)).toEqual([]);
        expect(validate(schemas.WebhookEvent, body)).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it('has payload schemas that refuse what the codec refuses for the same rule', () => {
    const created = { type: 'plant.created', timestamp: '2026-11-24T10:00:00.123Z', data: { id: 1, name: 'Fern' } };
    const deleted = { type: 'plant.deleted', timestamp: '2026-11-24T10:00:00.123Z', data: { id: 1 } };
    const broken = [
      { ...created, type: 'plant.moved' },
      { ...created, timestamp: '2026-11-24T10:00:00Z' },
      { ...created, data: { id: 1 } },
      { ...created, data: { id: 0, name: 'Fern' } },
      { ...created, data: { id: 1, name: '' } },
      { ...deleted, data: {} },
      { type: 'plant.deleted', timestamp: deleted.timestamp },
    ];
    for (const body of broken) {
      expect(accepts(WebhookEvent, body), JSON.stringify(body)).toBe(false);
      expect(validate(schemas.WebhookEvent, body), JSON.stringify(body)).not.toEqual([]);
    }
  });

  it('maps every event type to its schema in the WebhookEvent discriminator', () => {
    const { oneOf, discriminator } = schemas.WebhookEvent;
    expect(Object.keys(discriminator.mapping).sort()).toEqual([...WEBHOOK_EVENT_TYPES].sort());
    expect(oneOf.map(({ $ref }) => $ref).sort()).toEqual(Object.values(discriminator.mapping).sort());
  });
});
