/**
 * Checks one answer against the document: its status is documented for the operation, every
 * required header is there, every documented header present validates against its schema, and
 * the body has a documented media type and validates against its schema (or is empty where the
 * document gives none, and always on HEAD).
 */
import type { Document, Operation, Schema } from './document.js';

export interface Answer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | readonly string[] | undefined>>;
  readonly text: string;
}

/** A header's text as the type its schema names (headers are text on the wire). */
const asSchemaValue = (text: string, schema: Schema): unknown =>
  schema['type'] === 'integer' && /^-?[0-9]+$/.test(text) ? Number(text) : text;

/** What is wrong with `answer` as an answer to `op`; empty when it conforms. */
export const responseProblems = (doc: Document, op: Operation, answer: Answer): string[] => {
  const spec = op.responses[String(answer.status)] ?? op.responses['default'];
  if (spec === undefined)
    return [
      `status ${answer.status} is not documented for ${op.method} ${op.path} (documented: ${Object.keys(op.responses).join(', ')})`,
    ];
  const problems: string[] = [];
  for (const [name, header] of Object.entries(spec.headers)) {
    const value = answer.headers[name];
    if (value === undefined) {
      if (header.required) problems.push(`required header ${name} is missing`);
      continue;
    }
    const text = typeof value === 'string' ? value : value.join(', ');
    const validate = doc.validator(header.schema);
    if (!validate(asSchemaValue(text, header.schema)))
      problems.push(`header ${name}: ${JSON.stringify(text)} ${doc.describeErrors(validate.errors)}`);
  }
  const media = Object.keys(spec.content);
  if (op.method === 'HEAD' || media.length === 0) {
    if (answer.text !== '') problems.push(`expected no body, got ${JSON.stringify(answer.text.slice(0, 200))}`);
    return problems;
  }
  const contentType =
    String(answer.headers['content-type'] ?? '')
      .split(';')[0]
      ?.trim()
      .toLowerCase() ?? '';
  const schema = spec.content[contentType];
  if (schema === undefined)
    return [
      ...problems,
      `Content-Type ${JSON.stringify(contentType)} is not documented (documented: ${media.join(', ')})`,
    ];
  let body: unknown = answer.text;
  if (contentType === 'application/json' || contentType.endsWith('+json')) {
    try {
      body = JSON.parse(answer.text);
    } catch {
      return [...problems, `body is not JSON: ${JSON.stringify(answer.text.slice(0, 200))}`];
    }
  }
  const validate = doc.validator(schema);
  if (!validate(body))
    problems.push(`body ${JSON.stringify(body).slice(0, 300)} ${doc.describeErrors(validate.errors)}`);
  return problems;
};
