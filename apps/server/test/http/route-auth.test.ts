/**
 * Every route asks for what the served document says it asks for (docs/reference/api.md,
 * "Authentication"). The routes come from the router the app actually runs, the operations and
 * their `security` from `GET /openapi.json`; neither is listed here. For each method and path of
 * either, with its path parameters filled:
 *
 * - an operation that needs a scope: no credentials → 401, a valid token without the scope → 403
 *   naming it, a token with every scope → neither;
 * - an operation documented public (`security: []`), or a route the document names in such an
 *   operation's description (the docs page's files): no credentials → answered, not 401/403,
 *   nor 404/405;
 * - a route the document does not have (a method `router.all` takes for a path): 405 before
 *   authentication, nothing else.
 *
 * A route added without its scope check, or with another scope than documented, fails here.
 */
import net from 'node:net';
import type Router from '@koa/router';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createPlant, request, startTestServer, TOKEN_SCOPES, type TestServer } from './support.js';

type Requirement = Readonly<Record<string, readonly string[]>>;
interface Operation {
  readonly security?: readonly Requirement[];
  readonly description?: string;
}
interface Document {
  readonly security?: readonly Requirement[];
  readonly paths: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
}

const HTTP_METHODS = ['get', 'head', 'post', 'put', 'patch', 'delete', 'options', 'trace'];

/** What a method and path must do without credentials, and with which tokens. */
type Expectation =
  | { readonly kind: 'scoped'; readonly scopes: readonly string[] }
  | { readonly kind: 'public' }
  | { readonly kind: 'method-not-allowed' };

let server: TestServer;
let document: Document;
let plantId: number;

beforeAll(async () => {
  server = await startTestServer();
  const created = await createPlant(server, { name: 'Fern' });
  plantId = Number(/\/plants\/(\d+)$/.exec(String(created.headers.location))?.[1]);
  document = (await request(server, '/openapi.json')).json as Document;
});
afterAll(() => server.close());

/** The router the app runs: @koa/router leaves itself on the middleware `router.routes()` returns. */
const runningRouter = (): Router => {
  const routers = server.app.middleware.flatMap((m) => {
    const router = (m as { router?: Router }).router;
    return router === undefined ? [] : [router];
  });
  expect(routers).toHaveLength(1);
  return routers[0] as Router;
};

/** `/plants/:id` → `/plants/{id}`, as the document names paths. */
const templateOf = (routerPath: string): string => routerPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

/** A template with its parameters filled with values that name something in the store. */
const concrete = (template: string): string =>
  template.replace(/\{([^}]+)\}/g, (_whole, name: string) => {
    if (name === 'id') return String(plantId);
    throw new Error(`no test value for the path parameter ${name} of ${template}: add one here`);
  });

const operations = (): Map<string, Operation> => {
  const found = new Map<string, Operation>();
  for (const [path, item] of Object.entries(document.paths))
    for (const [method, operation] of Object.entries(item))
      if (HTTP_METHODS.includes(method)) found.set(`${method.toUpperCase()} ${path}`, operation as Operation);
  return found;
};

const expectationOf = (operation: Operation): Expectation => {
  const security = operation.security ?? document.security ?? [];
  if (security.length === 0 || security.some((requirement) => Object.keys(requirement).length === 0))
    return { kind: 'public' };
  expect(security, 'one security requirement per operation (alternatives are not checked here)').toHaveLength(1);
  const requirement = security[0] as Requirement;
  expect(Object.keys(requirement), 'the bearer scheme').toEqual(['bearer']);
  return { kind: 'scoped', scopes: requirement['bearer'] ?? [] };
};

/** Every method + path the router or the document has, with what it must do. */
const walk = (): Map<string, Expectation> => {
  const documented = operations();
  const publicDescriptions = [...documented.values()]
    .filter((operation) => expectationOf(operation).kind === 'public')
    .map((operation) => operation.description ?? '');
  const walked = new Map<string, Expectation>();
  for (const [key, operation] of documented) walked.set(key, expectationOf(operation));
  for (const layer of runningRouter().stack) {
    expect(typeof layer.path, `a route's path is a string: ${String(layer.path)}`).toBe('string');
    const template = templateOf(String(layer.path));
    for (const method of layer.methods) {
      const key = `${method} ${template}`;
      if (walked.has(key)) continue;
      const named = publicDescriptions.some((description) => description.includes(`\`${template}\``));
      walked.set(key, named ? { kind: 'public' } : { kind: 'method-not-allowed' });
    }
  }
  return walked;
};

/** A valid test token that lacks `scope`, if there is one. */
const tokenWithout = (scope: string): string | undefined => {
  const name = (['read', 'write'] as const).find((n) => !(TOKEN_SCOPES[n] as readonly string[]).includes(scope));
  return name === undefined ? undefined : server.tokens[name];
};

/**
 * The status of a CONNECT without credentials, on a socket of its own: Node's client takes any
 * answer to CONNECT for a tunnel and never reports it as a response.
 */
const connectStatus = (path: string): Promise<number> =>
  new Promise((resolve, reject) => {
    const socket = net.connect(server.port, '127.0.0.1');
    let head = '';
    socket.on('data', (chunk: Buffer) => {
      head += chunk.toString('latin1');
      const status = /^HTTP\/1\.1 (\d{3}) /.exec(head);
      if (status === null) return;
      socket.destroy();
      resolve(Number(status[1]));
    });
    socket.on('error', reject);
    socket.write(`CONNECT ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
  });

/** What is wrong with `method path` against `expectation`; empty when nothing is. */
const check = async (key: string, expectation: Expectation): Promise<string[]> => {
  const [method = '', template = ''] = key.split(' ');
  const path = concrete(template);
  const ask = (headers: Record<string, string> = {}) => request(server, path, { method, headers });
  const problems: string[] = [];
  if (method === 'CONNECT') {
    const status = await connectStatus(path);
    if (expectation.kind !== 'method-not-allowed' || status !== 405)
      problems.push(`${key}: ${status} without credentials, where the document says ${expectation.kind}`);
    return problems;
  }
  const anonymous = await ask();
  switch (expectation.kind) {
    case 'scoped': {
      if (anonymous.status !== 401 || anonymous.headers['www-authenticate'] !== 'Bearer realm="plant-store"')
        problems.push(`${key} without credentials: ${anonymous.status}, not 401 with WWW-Authenticate`);
      for (const scope of expectation.scopes) {
        const token = tokenWithout(scope);
        if (token === undefined) {
          problems.push(`${key} needs ${scope}: no test token lacks it (add one in support.ts)`);
          continue;
        }
        const refused = await ask(bearer(token));
        const challenge = String(refused.headers['www-authenticate']);
        if (refused.status !== 403 || !challenge.includes(`error="insufficient_scope", scope="${scope}"`))
          problems.push(`${key} with a token without ${scope}: ${refused.status} ${challenge}, not 403 naming it`);
      }
      const missing = expectation.scopes.filter((s) => !(TOKEN_SCOPES.all as readonly string[]).includes(s));
      if (missing.length > 0) problems.push(`${key} needs ${missing.join(', ')}, which tokens.all lacks`);
      const allowed = await ask(bearer(server.tokens.all));
      if (allowed.status === 401 || allowed.status === 403)
        problems.push(`${key} with every scope: ${allowed.status}, refused`);
      break;
    }
    case 'public':
      if ([401, 403, 404, 405].includes(anonymous.status))
        problems.push(`${key} is public, but without credentials: ${anonymous.status}`);
      break;
    case 'method-not-allowed':
      if (anonymous.status !== 405)
        problems.push(
          `${key} is registered but not in /openapi.json: ${anonymous.status} without credentials (document it, or answer 405)`,
        );
      break;
  }
  return problems;
};

describe('every route against the served document', () => {
  it('walks the router the app runs and every documented operation', () => {
    const walked = walk();
    const routes = runningRouter().stack.filter((layer) => layer.methods.length > 0);
    // Every documented path, and more keys than the router has routes (HEAD twins, OPTIONS).
    expect(routes.length).toBeGreaterThan(0);
    for (const path of Object.keys(document.paths))
      expect([...walked.keys()].some((key) => key.endsWith(` ${path}`))).toBe(true);
    expect([...walked.values()].filter((e) => e.kind === 'scoped').length).toBeGreaterThan(0);
  });

  it('answers each one as its security says: 401 without credentials, 403 without the scope', async () => {
    const problems: string[] = [];
    // Deletes last: the plant the other routes name stays until then.
    const keys = [...walk()].sort(([a], [b]) => Number(a.startsWith('DELETE')) - Number(b.startsWith('DELETE')));
    for (const [key, expectation] of keys) problems.push(...(await check(key, expectation)));
    expect(problems).toEqual([]);
  });
});
