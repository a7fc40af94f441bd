/** A date as the CLIs print it: ISO 8601 in UTC, `-` for none. */
export const iso = (d: Date | null): string => (d === null ? '-' : d.toISOString());

/** Rows as aligned columns on stdout (two spaces apart, no trailing blanks); the first row is the header. */
export const printTable = (rows: readonly (readonly string[])[]): void => {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((row) => (row[i] ?? '').length))) ?? [];
  process.stdout.write(
    rows
      .map((row) =>
        row
          .map((cell, i) => cell.padEnd(widths[i] ?? 0))
          .join('  ')
          .trimEnd(),
      )
      .join('\n') + '\n',
  );
};
