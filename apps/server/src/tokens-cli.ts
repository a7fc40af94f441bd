#!/usr/bin/env node
import { parseArgs } from 'node:util';
import * as E from 'fp-ts/lib/Either.js';
import pino from 'pino';
import { openStore } from './adapters/open-store.js';
import { decodeConfig } from './config.js';
import { createLogger } from './logger.js';
import type { Store } from './ports/store.js';
import { isScope, SCOPES, type TokenRecord } from './ports/token-store.js';
import { parseDuration } from './tokens/duration.js';
import { issueToken } from './tokens/issue-token.js';

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

class UsageError extends Error {}

const status = (t: TokenRecord, now: number): string =>
  t.revokedAt !== null ? 'revoked' : t.expiresAt !== null && t.expiresAt.getTime() <= now ? 'expired' : 'active';

const iso = (d: Date | null): string => (d === null ? '-' : d.toISOString());

const failOnLeft = <A>(result: E.Either<{ readonly cause: unknown }, A>, what: string): A => {
  if (E.isLeft(result)) throw new Error(`could not ${what}`, { cause: result.left.cause });
  return result.right;
};

const create = async (store: Store, args: string[]): Promise<void> => {
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
  if (positionals.length > 0) throw new UsageError(`create takes no positional arguments, got ${positionals.join(' ')}`);
  const name = values.name?.trim();
  if (name === undefined || name === '' || name.length > 100) throw new UsageError('create needs --name <name> (1–100 characters)');
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
    if (ms === undefined) throw new UsageError(`--expires-in expects a duration such as 90m, 12h, 30d or 2w, got ${values['expires-in']}`);
    expiresAt = new Date(Date.now() + ms);
  } else if (values['expires-at'] !== undefined) {
    expiresAt = new Date(values['expires-at']);
    if (Number.isNaN(expiresAt.getTime()) || !/^\d{4}-\d{2}-\d{2}/.test(values['expires-at'])) {
      throw new UsageError(`--expires-at expects an ISO 8601 date such as 2027-01-31T00:00:00Z, got ${values['expires-at']}`);
    }
    if (expiresAt.getTime() <= Date.now()) throw new UsageError('--expires-at is in the past');
  }
  const existing = failOnLeft(await store.tokens.list()(), 'list the tokens');
  if (existing.some((t) => t.name === name)) throw new UsageError(`a token named ${name} already exists (names stay taken after revocation); choose another name`);
  const issued = failOnLeft(await issueToken(store.tokens, { name, scopes: SCOPES.filter((s) => scopes.includes(s)), expiresAt })(), 'store the token');
  const { record } = issued;
  process.stderr.write(
    `created token ${record.id} "${record.name}" (${record.scopes.join(' ')}), expires ${record.expiresAt === null ? 'never' : iso(record.expiresAt)}.\n` +
      'The token is printed below once; only its hash is stored.\n',
  );
  process.stdout.write(`${issued.token}\n`);
};

const list = async (store: Store, args: string[]): Promise<void> => {
  const { values, positionals } = parseArgs({ args, options: { json: { type: 'boolean' } }, strict: true, allowPositionals: true });
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
  const table = [
    ['ID', 'NAME', 'SCOPES', 'CREATED', 'EXPIRES', 'STATUS'],
    ...tokens.map((t) => [t.id, t.name, t.scopes.join(' '), iso(t.createdAt), iso(t.expiresAt), status(t, now)]),
  ];
  const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => (row[i] ?? '').length)));
  process.stdout.write(table.map((row) => row.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join('  ').trimEnd()).join('\n') + '\n');
};

const revoke = async (store: Store, args: string[]): Promise<boolean> => {
  const { positionals } = parseArgs({ args, options: {}, strict: true, allowPositionals: true });
  const [target, ...rest] = positionals;
  if (target === undefined || rest.length > 0) throw new UsageError('revoke takes exactly one argument: the token id or name');
  const revoked = failOnLeft(await store.tokens.revoke(target, new Date())(), 'revoke the token');
  if (!revoked) {
    process.stderr.write(`no active token with id or name ${target}\n`);
    return false;
  }
  process.stderr.write(`revoked ${target}\n`);
  return true;
};

const run = async (argv: string[]): Promise<number> => {
  const [command, ...args] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help' || args.includes('--help')) {
    process.stdout.write(HELP);
    return command === undefined ? 2 : 0;
  }
  if (!['create', 'list', 'revoke'].includes(command)) throw new UsageError(`unknown command ${command}`);
  const config = decodeConfig(process.env);
  if (E.isLeft(config)) {
    process.stderr.write(`plant-store-tokens: ${config.left}\n`);
    return 1;
  }
  if (config.right.auth.mode === 'jwt') process.stderr.write('note: AUTH_MODE=jwt; the server does not accept these tokens in that mode\n');
  const logger = createLogger({ level: 'warn', destination: pino.destination({ dest: 2, sync: true }) });
  // SQLite's own FULL: the commit is on disk before COMMIT returns, so a running server (which
  // does not hold its reads back for another process's commits) never sees it earlier.
  const store = await openStore(config.right.storeLocation, { synchronous: config.right.sqliteSynchronous, syncOffEventLoop: false, logger });
  try {
    switch (command) {
      case 'create':
        await create(store, args);
        return 0;
      case 'list':
        await list(store, args);
        return 0;
      default:
        return (await revoke(store, args)) ? 0 : 1;
    }
  } finally {
    await store.close();
  }
};

try {
  process.exitCode = await run(process.argv.slice(2));
} catch (err) {
  if (err instanceof UsageError || (err as { code?: unknown }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' || (err as { code?: unknown }).code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    process.stderr.write(`plant-store-tokens: ${(err as Error).message}\nRun plant-store-tokens --help for usage.\n`);
    process.exitCode = 2;
  } else {
    const cause = (err as { cause?: unknown }).cause;
    process.stderr.write(`plant-store-tokens: ${(err as Error).message}${cause instanceof Error ? `: ${cause.message}` : ''}\n`);
    process.exitCode = 1;
  }
}
