import { isB64Token } from '../tokens/opaque-token.js';
import { commaSeparated, fromString, nonEmpty, oneOf, parseUrl, type DecodedVariables } from './env-codecs.js';

export type AuthConfig =
  | {
      readonly mode: 'tokens';
      /**
       * PLANT_STORE_STATIC_TOKEN: a token accepted (both scopes) in addition to the store's; held in
       * memory only, never stored. Never PLANT_STORE_TOKEN: that is the client CLI's own token.
       */
      readonly seedToken: string | undefined;
    }
  | {
      readonly mode: 'jwt';
      readonly key: { readonly secret: string } | { readonly jwksUrl: string };
      readonly issuer: string;
      readonly audience: string;
      readonly algorithms: readonly string[];
    };

const hmacAlgorithms = ['HS256', 'HS384', 'HS512'] as const;
const asymmetricAlgorithms = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
] as const;

/** The variables AUTH_MODE and its credentials are read from, each with its codec, in table order. */
export const authVariables = {
  AUTH_MODE: oneOf(['tokens', 'jwt']),
  PLANT_STORE_STATIC_TOKEN: fromString(
    'a bearer token of 16–512 characters A–Z a–z 0–9 - . _ ~ + / (then optional =)',
    (s) => (s.length >= 16 && s.length <= 512 && isB64Token(s) ? s : undefined),
  ),
  JWT_SECRET: fromString('a shared secret of at least 32 characters', (s) => (s.length >= 32 ? s : undefined)),
  JWT_JWKS_URL: fromString('an http(s) URL of a JSON Web Key Set', (s) => {
    const url = parseUrl(s);
    return url !== undefined && (url.protocol === 'https:' || url.protocol === 'http:') ? s : undefined;
  }),
  JWT_ISSUER: nonEmpty('issuer'),
  JWT_AUDIENCE: nonEmpty('audience'),
  JWT_ALGORITHMS: fromString(
    `a comma-separated list of ${[...hmacAlgorithms, ...asymmetricAlgorithms].join(', ')} (never none)`,
    (s) => {
      const list = commaSeparated(s);
      const known: readonly string[] = [...hmacAlgorithms, ...asymmetricAlgorithms];
      return list.length > 0 && list.every((a) => known.includes(a)) ? list : undefined;
    },
  ),
} as const;

const jwtVariables = ['JWT_SECRET', 'JWT_JWKS_URL', 'JWT_ISSUER', 'JWT_AUDIENCE', 'JWT_ALGORITHMS'] as const;

/**
 * The authentication the decoded variables ask for; each inconsistency adds a line to `problems`.
 * Undefined when JWT settings are missing (a problem then says which).
 */
export const decodeAuth = (d: DecodedVariables<typeof authVariables>, problems: string[]): AuthConfig | undefined => {
  if (d.AUTH_MODE !== 'jwt') {
    const stray = jwtVariables.filter((name) => d[name] !== undefined);
    if (stray.length > 0)
      problems.push(`${stray.join(', ')} set but AUTH_MODE is not jwt (set AUTH_MODE=jwt or unset them)`);
    return { mode: 'tokens', seedToken: d.PLANT_STORE_STATIC_TOKEN };
  }
  if (d.PLANT_STORE_STATIC_TOKEN !== undefined)
    problems.push('PLANT_STORE_STATIC_TOKEN is only used with AUTH_MODE=tokens');
  if ((d.JWT_SECRET === undefined) === (d.JWT_JWKS_URL === undefined)) {
    problems.push('AUTH_MODE=jwt expects exactly one of JWT_SECRET and JWT_JWKS_URL');
  }
  if (d.JWT_ISSUER === undefined) problems.push('JWT_ISSUER expects the issuer (iss) that tokens must carry');
  if (d.JWT_AUDIENCE === undefined) problems.push('JWT_AUDIENCE expects the audience (aud) that tokens must carry');
  const usable: readonly string[] = d.JWT_SECRET !== undefined ? hmacAlgorithms : asymmetricAlgorithms;
  const algorithms = d.JWT_ALGORITHMS ?? (d.JWT_SECRET !== undefined ? ['HS256'] : ['RS256']);
  const unusable = algorithms.filter((a) => !usable.includes(a));
  if (unusable.length > 0) {
    problems.push(
      `JWT_ALGORITHMS expects ${d.JWT_SECRET !== undefined ? 'HMAC algorithms with JWT_SECRET' : 'asymmetric algorithms with JWT_JWKS_URL'}, got ${unusable.join(', ')}`,
    );
  }
  if (d.JWT_ISSUER === undefined || d.JWT_AUDIENCE === undefined) return undefined;
  const key =
    d.JWT_SECRET !== undefined
      ? { secret: d.JWT_SECRET }
      : d.JWT_JWKS_URL !== undefined
        ? { jwksUrl: d.JWT_JWKS_URL }
        : undefined;
  if (key === undefined) return undefined;
  return { mode: 'jwt', key, issuer: d.JWT_ISSUER, audience: d.JWT_AUDIENCE, algorithms };
};
