import { paths } from './paths.js';
import { runNode } from './processes.js';

/**
 * Creates a token with the server's own CLI (or the tokens CLI `cli` of another build) against
 * `databaseUrl` and returns the secret it printed once.
 */
export const createToken = async (
  databaseUrl: string,
  name: string,
  scopes: readonly string[] = ['plants:read', 'plants:write'],
  cli: string = paths.tokensCli,
): Promise<string> => {
  const args = ['create', '--name', name, ...scopes.flatMap((scope) => ['--scope', scope])];
  const result = await runNode(cli, args, { DATABASE_URL: databaseUrl });
  const token = /\b(pst_[A-Za-z0-9_-]{20,})\b/.exec(result.stdout)?.[1];
  if (result.code !== 0 || token === undefined) {
    throw new Error(`token CLI failed (${result.code}):\n${result.stdout}\n${result.stderr}`);
  }
  return token;
};
