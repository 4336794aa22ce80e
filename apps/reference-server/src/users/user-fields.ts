import type { Kyc } from '@institution-api/types';
import type { StoredUser } from '../storage/types.js';

/**
 * `dateOfBirth` as the responses carry it: a date-time at midnight UTC
 * (`1990-05-17T00:00:00.000Z`), although it is sent as a date (interface document 2.3;
 * DECISIONS.md "dateOfBirth").
 */
export function dateOfBirthAsDateTime(date: string | null): string | null {
  return date === null ? null : `${date}T00:00:00.000Z`;
}

/** The kyc object of a response, with all five keys present, null when unknown (spec: `Kyc`). */
export function kycOf(user: StoredUser): Required<Kyc> {
  const { occupation, address, validFrom, validTo, refNumber } = user.kyc;
  return { occupation, address, validFrom, validTo, refNumber };
}
