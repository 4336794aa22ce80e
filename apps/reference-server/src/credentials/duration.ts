/** Milliseconds in each unit of a DURATION. */
const units = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** A DURATION: a whole number and one unit, `90s`, `15m`, `24h`, `7d`. */
const pattern = /^(\d{1,6})([smhd])$/;

/** What a DURATION looks like, for messages. */
export const durationHint = 'a whole number and a unit: 90s, 15m, 24h, 7d';

/**
 * The milliseconds of a DURATION of the credentials command (`--expires-in`, `--grace`), or
 * undefined when `text` is not one. Up to 999,999 of a unit (2,700 years in days).
 */
export function parseDuration(text: string): number | undefined {
  const match = pattern.exec(text.trim());
  if (!match?.[1] || !match[2]) return undefined;
  return Number(match[1]) * units[match[2] as keyof typeof units];
}
