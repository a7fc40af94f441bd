/** One link-value of a `Link` header (RFC 8288 §3). */
export interface Link {
  /** The URI-Reference between `<` and `>`, as written (not yet resolved). */
  readonly uri: string;
  /** The relation types of `rel`, lower-cased (a `rel` may list several, space-separated). */
  readonly rels: readonly string[];
  /** Every parameter by lower-cased name; the first occurrence of a name wins (RFC 8288 §3.3). */
  readonly params: Readonly<Record<string, string>>;
}

const isTokenChar = (ch: string): boolean => /^[!#$%&'*+\-.^_`|~0-9A-Za-z]$/.test(ch);
const isWhitespace = (ch: string | undefined): boolean => ch === ' ' || ch === '\t';

/**
 * Parses a `Link` header field value into its link-values, following the algorithm of RFC 8288
 * Appendix B.2: commas and semicolons inside `<…>` or quoted strings do not split, parameter
 * names are case-insensitive, quoted values are unescaped, and a malformed link-value is skipped
 * rather than failing the whole header.
 */
export const parseLinkHeader = (value: string): Link[] => {
  const links: Link[] = [];
  const n = value.length;
  let i = 0;

  const skipWhitespace = () => {
    while (isWhitespace(value[i])) i++;
  };
  // Skips to just after the next comma that is outside a quoted string (or to the end).
  const skipToNextLinkValue = () => {
    let quoted = false;
    while (i < n) {
      const ch = value[i];
      if (quoted && ch === '\\') i++;
      else if (ch === '"') quoted = !quoted;
      else if (ch === ',' && !quoted) {
        i++;
        return;
      }
      i++;
    }
  };
  const readQuoted = (): string => {
    let out = '';
    i++; // opening quote
    while (i < n && value[i] !== '"') {
      if (value[i] === '\\' && i + 1 < n) i++;
      out += value[i];
      i++;
    }
    i++; // closing quote (or past the end)
    return out;
  };

  while (i < n) {
    while (i < n && (isWhitespace(value[i]) || value[i] === ',')) i++;
    if (i >= n) break;
    if (value[i] !== '<') {
      skipToNextLinkValue();
      continue;
    }
    const close = value.indexOf('>', i + 1);
    if (close === -1) break;
    const uri = value.slice(i + 1, close).trim();
    i = close + 1;
    const params: Record<string, string> = {};
    let wellFormed = true;
    for (;;) {
      skipWhitespace();
      if (i >= n) break;
      if (value[i] === ',') {
        i++;
        break;
      }
      if (value[i] !== ';') {
        wellFormed = false;
        skipToNextLinkValue();
        break;
      }
      i++;
      skipWhitespace();
      let name = '';
      while (i < n && isTokenChar(value[i] as string)) name += value[i++];
      skipWhitespace();
      let paramValue = '';
      if (value[i] === '=') {
        i++;
        skipWhitespace();
        if (value[i] === '"') paramValue = readQuoted();
        else while (i < n && value[i] !== ';' && value[i] !== ',' && !isWhitespace(value[i])) paramValue += value[i++];
      }
      if (name === '') continue;
      const key = name.toLowerCase();
      if (!Object.hasOwn(params, key)) params[key] = paramValue;
    }
    if (!wellFormed) continue;
    const rels = (params['rel'] ?? '')
      .split(/[ \t]+/)
      .filter((rel) => rel !== '')
      .map((rel) => rel.toLowerCase());
    links.push({ uri, rels, params });
  }
  return links;
};

/**
 * The target of the first link with relation `rel` (case-insensitive), resolved against `base`
 * (the URL of the response that carried the header). Undefined when there is none or its URI
 * does not resolve.
 */
export const findLink = (
  header: string | readonly string[] | undefined,
  rel: string,
  base: string | URL,
): URL | undefined => {
  if (header === undefined) return undefined;
  const values = typeof header === 'string' ? [header] : header;
  const wanted = rel.toLowerCase();
  for (const value of values) {
    for (const link of parseLinkHeader(value)) {
      if (!link.rels.includes(wanted)) continue;
      try {
        return new URL(link.uri, base);
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
};
