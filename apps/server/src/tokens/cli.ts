#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { iso, printTable } from '../cli/output.js';
import { failOnLeft, runCli, UsageError, type CliContext } from '../cli/run-cli.js';
import { isScope, SCOPES, type TokenRecord } from '../ports/token-store.js';
import { parseDuration } from './duration.js';
import { issueToken } from './issue-token.js';

const HELP = `plant-store-tokens — manage the Plant Store's bearer tokens (in the store DATABASE_URL names)

Usage:
  plant-store-tokens create --name <name> --scope <scope> [--scope <scope>]
                            [--expires-in <n>(s|m|h|d|w) | --expires-at <ISO date>]
      Creates a token and prints it once on stdout (details on stderr). Only its SHA-256 hash is stored.
  plant-store-tokens list [--json]
      Lists tokens: id, name, scopes, created, expires, status. Never the secret.
  plant-store-tokens revoke <id|name>
      Revokes the active token with that id or name.
  plant-store-tokens --help

Scopes: ${SCOPES.join(', ')}.
Environment: DATABASE_URL (default sqlite:./data/plant-store.db, relative to the working directory), SQLITE_SYNCHRONOUS.
Exit codes: 0 done, 1 failed, 2 usage error.
From the repository root: pnpm tokens <command> …
`;

const status = (t: TokenRecord, now: number): string =>
  t.revokedAt !== null ? 'revoked' : t.expiresAt !== null && t.expiresAt.getTime() <= now ? 'expired' : 'active';

const create = async ({ store, args }: CliContext): Promise<void> => {
  const { values, positionals } = parseArgs({
    args,
    options: {
      name: { type: 'string' },
      scope: { type: 'string', multiple: true },
      'expires-in': { type: 'string' },
      'expires-at': { type: 'string' },
    },
    strict: true,
    allowPositionals: true,
  });
  if (positionals.length > 0)
    throw new UsageError(`create takes no positional arguments, got ${positionals.join(' ')}`);
  const name = values.name?.trim();
  if (name === undefined || name === '' || name.length > 100)
    throw new UsageError('create needs --name <name> (1–100 characters)');
  const scopes = [...new Set(values.scope ?? [])];
  if (scopes.length === 0) throw new UsageError(`create needs at least one --scope (${SCOPES.join(', ')})`);
  const unknown = scopes.filter((s) => !isScope(s));
  if (unknown.length > 0) throw new UsageError(`unknown scope ${unknown.join(', ')}; expected ${SCOPES.join(', ')}`);
  if (values['expires-in'] !== undefined && values['expires-at'] !== undefined) {
    throw new UsageError('give --expires-in or --expires-at, not both');
  }
  let expiresAt: Date | null = null;
  if (values['expires-in'] !== undefined) {
    const ms = parseDuration(values['expires-in']);
    if (ms === undefined)
      throw new UsageError(`--expires-in expects a duration such as 90m, 12h, 30d or 2w, got ${values['expires-in']}`);
    expiresAt = new Date(Date.now() + ms);
  } else if (values['expires-at'] !== undefined) {
    expiresAt = new Date(values['expires-at']);
    if (Number.isNaN(expiresAt.getTime()) || !/^\d{4}-\d{2}-\d{2}/.test(values['expires-at'])) {
      throw new UsageError(
        `--expires-at expects an ISO 8601 date such as 2027-01-31T00:00:00Z, got ${values['expires-at']}`,
      );
    }
    if (expiresAt.getTime() <= Date.now()) throw new UsageError('--expires-at is in the past');
  }
  const existing = failOnLeft(await store.tokens.list()(), 'list the tokens');
  if (existing.some((t) => t.name === name))
    throw new UsageError(
      `a token named ${name} already exists (names stay taken after revocation); choose another name`,
    );
  const issued = failOnLeft(
    await issueToken(store.tokens, { name, scopes: SCOPES.filter((s) => scopes.includes(s)), expiresAt })(),
    'store the token',
  );
  const { record } = issued;
  process.stderr.write(
    `created token ${record.id} "${record.name}" (${record.scopes.join(' ')}), expires ${record.expiresAt === null ? 'never' : iso(record.expiresAt)}.\n` +
      'The token is printed below once; only its hash is stored.\n',
  );
  process.stdout.write(`${issued.token}\n`);
};

const list = async ({ store, args }: CliContext): Promise<void> => {
  const { values, positionals } = parseArgs({
    args,
    options: { json: { type: 'boolean' } },
    strict: true,
    allowPositionals: true,
  });
  if (positionals.length > 0) throw new UsageError(`list takes no positional arguments, got ${positionals.join(' ')}`);
  const tokens = failOnLeft(await store.tokens.list()(), 'list the tokens');
  const now = Date.now();
  if (values.json === true) {
    const rows = tokens.map((t) => ({
      id: t.id,
      name: t.name,
      scopes: t.scopes,
      createdAt: t.createdAt.toISOString(),
      expiresAt: t.expiresAt?.toISOString() ?? null,
      revokedAt: t.revokedAt?.toISOString() ?? null,
      status: status(t, now),
    }));
    process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    return;
  }
  if (tokens.length === 0) {
    process.stdout.write('no tokens\n');
    return;
  }
  printTable([
    ['ID', 'NAME', 'SCOPES', 'CREATED', 'EXPIRES', 'STATUS'],
    ...tokens.map((t) => [t.id, t.name, t.scopes.join(' '), iso(t.createdAt), iso(t.expiresAt), status(t, now)]),
  ]);
};

const revoke = async ({ store, args }: CliContext): Promise<number> => {
  const { positionals } = parseArgs({ args, options: {}, strict: true, allowPositionals: true });
  const [target, ...rest] = positionals;
  if (target === undefined || rest.length > 0)
    throw new UsageError('revoke takes exactly one argument: the token id or name');
  const revoked = failOnLeft(await store.tokens.revoke(target, new Date())(), 'revoke the token');
  if (!revoked) {
    process.stderr.write(`no active token with id or name ${target}\n`);
    return 1;
  }
  process.stderr.write(`revoked ${target}\n`);
  return 0;
};

await runCli({
  name: 'plant-store-tokens',
  help: HELP,
  commands: { create, list, revoke },
  notes: (config) =>
    config.auth.mode === 'jwt' ? ['note: AUTH_MODE=jwt; the server does not accept these tokens in that mode'] : [],
});
