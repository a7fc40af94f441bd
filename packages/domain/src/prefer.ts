/**
 * Whether a list of preferences (RFC 7240: `Prefer`, and `Preference-Applied` in answers) holds
 * `name=value`. Preferences are separated by commas, within a field or across several; a
 * preference's name is case-insensitive and its value may be a quoted string; parameters after
 * `;` are ignored, as is every other preference.
 */
export const hasPreference = (fields: string | readonly string[] | undefined, name: string, value: string): boolean => {
  if (fields === undefined) return false;
  const wanted = name.toLowerCase();
  return (typeof fields === 'string' ? [fields] : fields).some((field) =>
    field.split(',').some((preference) => {
      const [token = ''] = preference.split(';');
      const eq = token.indexOf('=');
      if (eq < 0) return false;
      const given = token.slice(eq + 1).trim();
      return token.slice(0, eq).trim().toLowerCase() === wanted && (given === value || given === `"${value}"`);
    }),
  );
};
