/**
 * Whether the `Prefer` header fields (RFC 7240) ask for `count=exact`. Preferences are separated
 * by commas, within a field or across several; a preference's name is case-insensitive and its
 * value may be a quoted string; parameters after `;` are ignored, as is every other preference
 * (§2: a server ignores what it does not understand).
 */
export const prefersExactCount = (header: string | readonly string[] | undefined): boolean => {
  if (header === undefined) return false;
  const fields = typeof header === 'string' ? [header] : header;
  return fields.some((field) =>
    field.split(',').some((preference) => {
      const [token = ''] = preference.split(';');
      const eq = token.indexOf('=');
      if (eq < 0) return false;
      const name = token.slice(0, eq).trim().toLowerCase();
      const value = token.slice(eq + 1).trim();
      return name === 'count' && (value === 'exact' || value === '"exact"');
    }),
  );
};
