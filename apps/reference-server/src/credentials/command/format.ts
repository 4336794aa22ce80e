/** A time to the minute, in UTC, as the tables show it: `2026-11-21 18:36`. */
export function minute(date: Date | null): string {
  return date ? date.toISOString().slice(0, 16).replace('T', ' ') : '-';
}

/** A time to the second, in UTC: `2026-11-21 18:36:05`. */
export function second(date: Date): string {
  return date.toISOString().slice(0, 19).replace('T', ' ');
}

/** `date` cut to the minute, as ISO 8601 (the JSON of `list`: last use is known to the minute). */
export function isoMinute(date: Date | null): string | null {
  return date ? `${date.toISOString().slice(0, 16)}:00.000Z` : null;
}

/** Rows under a header, each column as wide as its widest cell, two spaces apart. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join('  ')
      .trimEnd();
  return `${[line(header), ...rows.map(line)].join('\n')}\n`;
}
