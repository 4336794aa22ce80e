/** A wrong command line or environment: exit 2, with the message and a pointer to --help. */
export class UsageError extends Error {}

/** A positive whole number from a flag, or a usage error naming the flag. */
export function wholeNumber(
  flag: string,
  value: string | undefined,
  { allowZero = false } = {},
): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(number) || (!allowZero && number === 0)) {
    throw new UsageError(
      `${flag} must be a ${allowZero ? 'whole number >= 0' : 'whole number > 0'}`,
    );
  }
  return number;
}

/** One of the allowed values, or a usage error naming the flag. */
export function oneOf<T extends string>(
  flag: string,
  value: string | undefined,
  allowed: readonly T[],
): T | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value))
    throw new UsageError(`${flag} must be one of ${allowed.join(', ')}`);
  return value as T;
}

/** An http(s) URL without a trailing slash, or a usage error naming where it came from. */
export function baseUrl(what: string, value: string | undefined): string {
  if (!value) throw new UsageError(`${what} is required`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`${what} is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`${what} must be an http or https URL`);
  return value.replace(/\/+$/, '');
}
