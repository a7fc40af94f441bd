import * as E from 'fp-ts/lib/Either.js';
import { SCOPES, type TokenStore } from '../ports/token-store.js';
import { issueToken } from './issue-token.js';

/**
 * The quick start's first token (AUTH_MODE=tokens without PLANT_STORE_STATIC_TOKEN): when the store
 * holds none, create one with both scopes. Only its hash is stored; the secret goes to the terminal
 * (stderr) once, never to the structured log.
 */
export const firstRunToken = async (tokens: TokenStore): Promise<string | undefined> => {
  const count = await tokens.count()();
  if (E.isLeft(count)) throw new Error('could not count the stored tokens', { cause: count.left.cause });
  if (count.right > 0) return undefined;
  const issued = await issueToken(tokens, { name: 'first-run', scopes: SCOPES, expiresAt: null })();
  if (E.isRight(issued)) return issued.right.token;
  // Another instance sharing the store (PostgreSQL) may have created it at the same moment.
  const recount = await tokens.count()();
  if (E.isRight(recount) && recount.right > 0) return undefined;
  throw new Error('could not store the first-run token', { cause: issued.left.cause });
};

/**
 * Shows the first-run token once, with a request to try it on `url` (on the loopback address when
 * the server listens on every interface, as in a container).
 */
export const printFirstRunToken = (token: string, url: string): void => {
  const tryUrl = url.replace('//0.0.0.0:', '//127.0.0.1:').replace('//[::]:', '//[::1]:');
  process.stderr.write(
    [
      '',
      'Plant Store created its first token (name "first-run", scopes plants:read plants:write).',
      'It is shown only now; only its SHA-256 hash is stored. Keep it:',
      '',
      `    ${token}`,
      '',
      `Try it:  curl -H "Authorization: Bearer ${token}" ${tryUrl}/plants`,
      'Manage tokens with the plant-store-tokens CLI (in the repository: pnpm tokens --help).',
      '',
      '',
    ].join('\n'),
  );
};
