/**
 * The spec's `format: date` (`YYYY-MM-DD`, RFC 3339 full-date), checked in full: a real calendar
 * day from 0001-01-01 to 9999-12-31, the range the spec publishes (Assumptions, "Dates").
 * ajv-formats' "fast" mode (express-openapi-validator's default) admits `1990-02-30`, and
 * PostgreSQL's `date` has no year 0000 (RFC 3339 allows it; no birth date or document needs it):
 * either would reach the database and fail there as a 500, so both are a 400 here.
 */
export function isCalendarDate(value: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!match) return false;
  const [year, month, day] = match.slice(1).map(Number) as [number, number, number];
  if (year < 1 || month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const daysInMonth = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0;
  return day <= daysInMonth;
}

/**
 * Formats whose meaning the spec narrows beyond ajv-formats' defaults, for every validator of the
 * contract (express-openapi-validator's `formats` option included).
 */
export const specFormats = {
  date: { type: 'string', validate: isCalendarDate },
} as const;
