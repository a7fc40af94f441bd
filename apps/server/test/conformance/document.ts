/**
 * The served OpenAPI document, read as the conformance suite needs it: every operation with its
 * parameters (path-level ones merged in, `$ref`s followed), request body, security scopes and
 * responses, and an Ajv (JSON Schema 2020-12, OpenAPI 3.1's dialect) that validates against the
 * document's own schemas. Nothing here knows this service's routes: it all comes from the document.
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';

export type Schema = Readonly<Record<string, unknown>>;

export interface Parameter {
  readonly name: string;
  readonly in: 'path' | 'query' | 'header';
  readonly required: boolean;
  readonly schema: Schema;
}

export interface ResponseHeader {
  readonly required: boolean;
  readonly schema: Schema;
}

export interface ResponseSpec {
  readonly headers: Readonly<Record<string, ResponseHeader>>;
  /** Media type → schema; empty when the response has no body. */
  readonly content: Readonly<Record<string, Schema>>;
}

export interface Operation {
  readonly id: string;
  readonly method: string;
  /** The path template, e.g. `/plants/{id}`. */
  readonly path: string;
  readonly parameters: readonly Parameter[];
  /** Media type → schema of the body, when the operation takes one. */
  readonly body: { readonly required: boolean; readonly content: Readonly<Record<string, Schema>> } | undefined;
  /** The bearer scopes the operation needs; undefined when it needs no authentication. */
  readonly scopes: readonly string[] | undefined;
  readonly responses: Readonly<Record<string, ResponseSpec>>;
}

export interface Document {
  readonly raw: Schema;
  readonly operations: readonly Operation[];
  /** Path template → the methods the document gives it (upper case). */
  readonly methodsByPath: ReadonlyMap<string, readonly string[]>;
  /** A validator for a schema of the document (its `$ref`s resolve into the document). */
  validator(schema: Schema): ValidateFunction;
  /** The schema a `$ref` (or an inline schema) stands for, followed through every `$ref`. */
  resolveSchema(schema: Schema): Schema;
  /** Ajv's errors as one line. */
  describeErrors(errors: ValidateFunction['errors']): string;
}

const METHODS = ['get', 'head', 'post', 'put', 'patch', 'delete', 'options', 'trace'] as const;
const SCHEMA_ID = 'plant-store-openapi';

const asRecord = (u: unknown, where: string): Record<string, unknown> => {
  if (typeof u !== 'object' || u === null || Array.isArray(u)) throw new TypeError(`${where}: expected an object`);
  return u as Record<string, unknown>;
};

/** The document's schemas with their `$ref`s pointed at one Ajv schema holding them all as `$defs`. */
const rebase = (node: unknown): unknown =>
  JSON.parse(JSON.stringify(node).replaceAll('"#/components/schemas/', `"${SCHEMA_ID}#/$defs/`));

export const readDocument = (raw: Schema): Document => {
  const pointer = (ref: string): unknown => {
    if (!ref.startsWith('#/')) throw new TypeError(`only local $refs are expected, got ${ref}`);
    return ref
      .slice(2)
      .split('/')
      .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'))
      .reduce<unknown>((node, key) => asRecord(node, ref)[key], raw);
  };
  const deref = (node: unknown): Record<string, unknown> => {
    let current = asRecord(node, 'node');
    for (let hops = 0; typeof current['$ref'] === 'string'; hops++) {
      if (hops > 20) throw new TypeError('$ref cycle');
      current = asRecord(pointer(current['$ref']), current['$ref']);
    }
    return current;
  };

  const components = asRecord(raw['components'], 'components');
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  // OpenAPI 3.1 adds these annotation keywords to JSON Schema; Ajv must know them in strict mode.
  ajv.addVocabulary(['example', 'discriminator', 'xml', 'externalDocs']);
  ajv.addFormat('int32', {
    type: 'number',
    validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31,
  });
  ajv.addSchema({ $id: SCHEMA_ID, $defs: rebase(components['schemas']) as object });
  const compiled = new Map<string, ValidateFunction>();
  const validator = (schema: Schema): ValidateFunction => {
    const key = JSON.stringify(schema);
    let validate = compiled.get(key);
    if (validate === undefined) {
      validate = ajv.compile(rebase(schema) as object);
      compiled.set(key, validate);
    }
    return validate;
  };
  const resolveSchema = (schema: Schema): Schema => {
    const ref = schema['$ref'];
    if (typeof ref !== 'string') return schema;
    return resolveSchema(asRecord(pointer(ref), ref));
  };

  const parameterOf = (node: unknown): Parameter => {
    const p = deref(node);
    return {
      name: String(p['name']),
      in: p['in'] as Parameter['in'],
      required: p['required'] === true,
      schema: asRecord(p['schema'], `parameter ${String(p['name'])}`),
    };
  };
  const contentOf = (node: unknown): Record<string, Schema> =>
    Object.fromEntries(
      Object.entries(node === undefined ? {} : asRecord(node, 'content')).map(([type, media]) => [
        type,
        asRecord(asRecord(media, type)['schema'], type),
      ]),
    );

  const operations: Operation[] = [];
  const methodsByPath = new Map<string, string[]>();
  const globalSecurity = raw['security'];
  for (const [path, itemNode] of Object.entries(asRecord(raw['paths'], 'paths'))) {
    const item = asRecord(itemNode, path);
    const shared = ((item['parameters'] as unknown[] | undefined) ?? []).map(parameterOf);
    methodsByPath.set(path, []);
    for (const method of METHODS) {
      if (item[method] === undefined) continue;
      methodsByPath.get(path)?.push(method.toUpperCase());
      const op = asRecord(item[method], `${method} ${path}`);
      const own = ((op['parameters'] as unknown[] | undefined) ?? []).map(parameterOf);
      // An operation's parameter replaces the path item's one of the same name and location.
      const parameters = [...shared.filter((s) => !own.some((o) => o.name === s.name && o.in === s.in)), ...own];
      const bodyNode = op['requestBody'] === undefined ? undefined : deref(op['requestBody']);
      const security = (op['security'] ?? globalSecurity) as Array<Record<string, string[]>> | undefined;
      const bearer = security?.find((requirement) => 'bearer' in requirement)?.['bearer'];
      const responses: Record<string, ResponseSpec> = {};
      for (const [status, responseNode] of Object.entries(asRecord(op['responses'], `${method} ${path} responses`))) {
        const response = deref(responseNode);
        const headers: Record<string, ResponseHeader> = {};
        for (const [name, headerNode] of Object.entries(asRecord(response['headers'] ?? {}, 'headers'))) {
          const header = deref(headerNode);
          headers[name.toLowerCase()] = {
            required: header['required'] === true,
            schema: asRecord(header['schema'], name),
          };
        }
        responses[status] = { headers, content: contentOf(response['content']) };
      }
      operations.push({
        id: String(op['operationId']),
        method: method.toUpperCase(),
        path,
        parameters,
        body:
          bodyNode === undefined
            ? undefined
            : { required: bodyNode['required'] === true, content: contentOf(bodyNode['content']) },
        scopes: security === undefined || security.length === 0 || bearer === undefined ? undefined : bearer,
        responses,
      });
    }
  }
  const describeErrors = (errors: ErrorObject[] | null | undefined): string =>
    ajv.errorsText(errors, { dataVar: 'value' });
  return { raw, operations, methodsByPath, validator, resolveSchema, describeErrors };
};
