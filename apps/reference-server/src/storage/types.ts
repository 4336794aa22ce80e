/**
 * The storage contract between the HTTP layer and the database: plain, already-validated values in,
 * stored values out. The HTTP layer maps these to the two response shapes of the interface document
 * (2.3/2.4); nothing here knows about HTTP.
 */

/** Payout account kinds of the interface document, section 2.4. */
export type AccountType = 'MOMO' | 'BANK';

/** Mobile money networks of the interface document, section 2.1. */
export type MobileNetwork = 'MTN' | 'AIRTEL_TIGO' | 'TELECEL';

/** KYC details (document 2.2; types decided in DECISIONS.md "kyc fields"). Dates are 'YYYY-MM-DD'. */
export interface Kyc {
  occupation: string | null;
  address: string | null;
  validFrom: string | null;
  validTo: string | null;
  refNumber: string | null;
}

/** The one payout account a user may have (document 2.1 rules 1-3, 2.4). */
export interface AccountDetails {
  type: AccountType;
  /** A MOMO account number is the wallet's mobile number, '+233…' (DECISIONS.md "MOMO accounts"). */
  number: string;
  network: MobileNetwork | null;
  bankName: string | null;
  name: string;
}

/** An account as stored: its identity and creation time are the database's. */
export interface StoredAccount extends AccountDetails {
  id: string;
  createdAt: Date;
}

/**
 * A user's details, already validated and normalized by the HTTP layer: mobileNumber '+233XXXXXXXXX',
 * ghanaCardNumber 'GHA-123456789-0', dateOfBirth 'YYYY-MM-DD' or null, MOMO account number '+233…'
 * (DECISIONS.md "mobileNumber", "ghanaCardNumber", "dateOfBirth"); dates from 0001-01-01 to
 * 9999-12-31, the range both engines store. Strings are stored and read back byte for byte
 * (DECISIONS.md "text"); each must be well-formed Unicode (a lone surrogate cannot be encoded as
 * UTF-8) and free of U+0000 (PostgreSQL text cannot hold it): the HTTP layer refuses both as bad
 * fields, since the database would alter the one and fail on the other.
 */
export interface UserDetails {
  email: string;
  firstName: string;
  lastName: string;
  otherName: string | null;
  gender: string | null;
  dateOfBirth: string | null;
  mobileNumber: string;
  ghanaCardNumber: string;
  monthlyIncome: number;
  isGhanaCardVerified: boolean;
  image: string | null;
  ghanaCardImage: string | null;
  kyc: Kyc;
  account: AccountDetails | null;
}

/** A user as stored, with what the database owns: id, documents, account identity, creation time. */
export interface StoredUser extends Omit<UserDetails, 'account'> {
  id: string;
  documents: string[];
  account: StoredAccount | null;
  createdAt: Date;
}

/**
 * A write would give a user a value that belongs to another user (DECISIONS.md "unique email";
 * on update, the Ghana Card number of another user). The HTTP layer answers 409.
 */
export class ConflictError extends Error {
  constructor(readonly field: 'email' | 'ghanaCardNumber') {
    super(`${field} already belongs to another user`);
    this.name = 'ConflictError';
  }
}

/**
 * A create named the Ghana Card number of an existing user that does not belong to the calling
 * institution, without that user's mobile number (DECISIONS.md "existing user recognition"). The
 * HTTP layer answers 409 and reveals nothing stored, so this error carries nothing stored either.
 */
export class ExistsWithOtherDetailsError extends Error {
  constructor() {
    super('a user with this Ghana Card number exists with other details');
    this.name = 'ExistsWithOtherDetailsError';
  }
}

/**
 * One institution's key pair, as provisioned from INSTITUTION_CREDENTIALS or issued by the
 * issue-credentials command (DECISIONS.md "credentials").
 */
export interface InstitutionCredential {
  institution: string;
  publicKey: string;
  secretKey: string;
}

/** Where one key stands in its window after a request was counted (see {@link RateLimiter}). */
export interface RateLimitWindow {
  /** Whether the request fits the limit; false once the window's requests are spent. */
  allowed: boolean;
  /** Requests the key may still make in this window, 0 or more. */
  remaining: number;
  /** Milliseconds until the window ends and the count starts again, 0 or more. */
  resetsInMs: number;
}

/**
 * Counts requests per key (an institution's id) in fixed windows, where every server process on
 * the same database counts them (DECISIONS.md "rate limit", "several processes").
 */
export interface RateLimiter {
  /** Counts one request of `key`, refused ones included, and says where the key stands. */
  consume(key: string): Promise<RateLimitWindow>;
}

/** Everything the server persists. Every call is one database transaction. */
export interface Storage {
  /**
   * New user (created: true), or the existing user with this ghanaCardNumber, with its STORED
   * details unchanged (created: false), when the caller may have it (DECISIONS.md "existing user
   * recognition"): it already belongs to the institution, or the request carries its mobileNumber,
   * and then it is added to the institution. Throws ExistsWithOtherDetailsError otherwise, and
   * ConflictError('email') when a NEW user would take another user's email. Race-free: creates of
   * one person running at once give one user.
   */
  createOrAddUser(
    institutionId: string,
    details: UserDetails,
  ): Promise<{ created: boolean; user: StoredUser }>;
  /**
   * Replace the details of a user that belongs to the institution; null when it does not (or does
   * not exist). The details are one record shared by every member institution (DECISIONS.md
   * "shared record"): all of them see the change. Throws ConflictError('email'|'ghanaCardNumber')
   * when taken by another user. Account: keep the account id/createdAt when type+number are
   * unchanged, otherwise replace the account (new id); details.account null removes it.
   */
  updateUser(
    institutionId: string,
    userId: string,
    details: UserDetails,
  ): Promise<StoredUser | null>;
  /** For request authentication. */
  findCredential(
    publicKey: string,
  ): Promise<{ institutionId: string; institution: string; secretKey: string } | null>;
  /** Upsert institutions by name and their key pairs by publicKey (a changed secret replaces the old). */
  upsertCredentials(list: InstitutionCredential[]): Promise<void>;
  countInstitutions(): Promise<number>;
  /**
   * A counter of `limit` requests per key and `windowSeconds`, kept where every server process on
   * this database sees it: a table of PostgreSQL; the process's memory on SQLite, which serves
   * one server process (see sqlite-server-lock.ts). Its `consume` fails as unavailable like any
   * other call when the database cannot count.
   */
  rateLimiter(limit: number, windowSeconds: number): RateLimiter;
  /** Health check: a trivial query. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
