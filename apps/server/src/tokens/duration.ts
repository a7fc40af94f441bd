const units: Readonly<Record<string, number>> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** Parses `90s`, `15m`, `12h`, `30d` or `2w` to milliseconds; undefined for anything else. */
export const parseDuration = (text: string): number | undefined => {
  const match = /^([1-9][0-9]{0,5})([smhdw])$/.exec(text);
  if (match === null) return undefined;
  const [, amount, unit] = match;
  return Number(amount) * (units[unit ?? ''] ?? Number.NaN);
};
