import type { components } from '@institution-api/types';

/**
 * The storage contract between the HTTP layer and the database: plain, already-validated values in,
 * stored values out. The HTTP layer maps these to the spec's two answer shapes
 * (`UserCreated`, `UserUpdated`); nothing here knows about HTTP.
 */

type Schemas = components['schemas'];

/** Payout account kinds (spec: `AccountType`). */
export type AccountType = Schemas['AccountType'];

/** Mobile money networks (spec: `MobileNetwork`). */
export type MobileNetwork = Schemas['MobileNetwork'];

/**
 * The one payout account a user may have: its fields as the request names them (spec: the
 * properties of `UserInput`'s variants), normalized, each absent one null (a MOMO account's
 * `bankName`, a field the spec added since it was stored). Its type and number make it the same
 * account (`@institution-api/runtime/rules`, `sameAccount`); a MOMO account number is the wallet's
 * mobile number, '+233…' (spec: Assumptions, "MOMO accounts").
 */
export type AccountDetails = {
  accountType: AccountType;
  accountNumber: string;
  readonly [field: string]: unknown;
};

/** An account as stored: its identity and creation time are the database's. */
export type StoredAccount = AccountDetails & { id: string; createdAt: Date };

/** The request fields of the payout account (spec: the properties of `UserInput`'s variants). */
type AccountField = keyof Schemas['NoAccountDetails'];

/**
 * A user's details, already validated and normalized by the HTTP layer (spec: `UserInput`), every
 * absent optional field given its absent value (spec: Assumptions, "Absent fields"):
 * mobileNumber '+233XXXXXXXXX', ghanaCardNumber 'GHA-123456789-0', a MOMO account number '+233…';
 * dates 'YYYY-MM-DD' from 0001-01-01 to 9999-12-31. The account fields are gathered into `account`.
 *
 * The storage keeps `email`, `mobileNumber` and `ghanaCardNumber` in columns of their own, which
 * recognize a person and keep an email to one user, and every other field as one JSON document
 * beside them, as it was sent: a field the spec adds is stored with no change here (spec:
 * Assumptions, "Details follow the spec"). Strings are stored and read back byte for byte; each
 * must be well-formed Unicode and free of U+0000 (PostgreSQL cannot hold it): the HTTP layer
 * refuses both as bad fields, since the database would alter the one and fail on the other.
 */
export type UserDetails = Omit<Schemas['UserInput'], AccountField> & {
  account: AccountDetails | null;
};

/** A user as stored, with what the database owns: id, documents, account identity, creation time. */
export type StoredUser = Omit<UserDetails, 'account'> & {
  id: string;
  documents: string[];
  account: StoredAccount | null;
  createdAt: Date;
};

/**
 * A write would give a user a value that belongs to another user (spec Assumptions, "Unique email";
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
 * institution, without that user's mobile number (spec Assumptions, "Existing users"). The
 * HTTP layer answers 409 and reveals nothing stored, so this error carries nothing stored either.
 */
export class ExistsWithOtherDetailsError extends Error {
  constructor() {
    super('a user with this Ghana Card number exists with other details');
    this.name = 'ExistsWithOtherDetailsError';
  }
}

/**
 * Whether `error` is a write's conflict ({@link ConflictError}, {@link ExistsWithOtherDetailsError}):
 * the database's answer, found before anything was written, and with a request's nonce recorded.
 */
export function isConflict(error: unknown): error is ConflictError | ExistsWithOtherDetailsError {
  return error instanceof ConflictError || error instanceof ExistsWithOtherDetailsError;
}

/**
 * The message signature's nonce that a write carried was used before with this key pair, by this
 * process or any other on the database: the request is a replay, and nothing was written (spec:
 * "Assumptions", message signatures). The HTTP layer answers the one 401.
 */
export class ReplayedNonceError extends Error {
  constructor() {
    super('the nonce was used before with this key pair');
    this.name = 'ReplayedNonceError';
  }
}

/**
 * What a key pair requires of a request besides `Authorization: <publicKey>:<signature>` (spec:
 * `InstitutionSignature`, "Assumptions", message signatures):
 * - `any`: nothing more (a valid RFC 9421 message signature is checked when present, and its nonce
 *   used once, but none is needed); every pair issued before message signatures existed;
 * - `message-signature`: a valid message signature, whose nonce was not used before.
 */
export const signaturePolicies = ['any', 'message-signature'] as const;

/** One of {@link signaturePolicies}. */
export type SignaturePolicy = (typeof signaturePolicies)[number];

/**
 * One institution's key pair, as provisioned from INSTITUTION_CREDENTIALS or issued by the
 * credentials command (spec: "Assumptions", credentials).
 */
export interface InstitutionCredential {
  institution: string;
  publicKey: string;
  secretKey: string;
  /** Absent: `any`. */
  signaturePolicy?: SignaturePolicy;
}

/** Where one key stands in its window after a request was counted (see {@link RateLimiter}). */
export interface RateLimitWindow {
  /** Whether the request fits the limit; false once the window's requests are spent. */
  allowed: boolean;
  /** Requests the key may still make in this window, 0 or more. */
  remaining: number;
  /** Milliseconds until the window ends and the count starts again, 0 or more. */
  resetsInMs: number;
  /** The requests of the key counted in this window, this one included. */
  counted: number;
}

/**
 * What a {@link RateLimiter} counts, each in counts of its own: `requests`, an institution's
 * verified requests (RATE_LIMIT_PER_MINUTE); `refused-by-key` and `refused-by-address`, the
 * requests refused for their signature, per public key and per client address
 * (http/refusal-limit.ts).
 */
export type RateLimitCount = 'requests' | 'refused-by-key' | 'refused-by-address';

/**
 * Counts requests per key (an institution's id) in fixed windows, where every server process on
 * the same database counts them (spec Assumptions, "Rate limits", "Several processes").
 */
export interface RateLimiter {
  /** Counts one request of `key`, refused ones included, and says where the key stands. */
  consume(key: string): Promise<RateLimitWindow>;
}

/** What authentication needs to know of a public key: its institution, secret and state. */
export interface FoundCredential {
  institutionId: string;
  institution: string;
  /** Decrypted from the row (the database holds it encrypted: see credentials/secret-box.ts). */
  secretKey: string;
  /** From then on the key is refused; null: it never expires. */
  expiresAt: Date | null;
  /** When the key was revoked; null: not revoked. A revoked key is refused. */
  revokedAt: Date | null;
  /** Whether its requests need a message signature. */
  signaturePolicy: SignaturePolicy;
}

/** A key pair as `credentials list` shows it: never its secret. */
export interface CredentialRecord {
  publicKey: string;
  institution: string;
  signaturePolicy: SignaturePolicy;
  createdAt: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
  revokedReason: string | null;
  /** Written at most once a minute per key and server process (credentials/last-used.ts). */
  lastUsedAt: Date | null;
}

/**
 * What happened to a key pair, as the events table records it:
 * - `issued`: a new pair (the command, or the demo institution);
 * - `rotated`: the new pair of a rotation;
 * - `expiry-set`: a rotation set this pair to expire;
 * - `revoked`: refused from then on;
 * - `provisioned`: INSTITUTION_CREDENTIALS added the pair;
 * - `secret-replaced`: INSTITUTION_CREDENTIALS gave an existing pair another secret or institution;
 * - `provision-skipped`: INSTITUTION_CREDENTIALS names a revoked or expired pair, which stays refused;
 * - `encrypted`: a secret stored in clear by an earlier version was encrypted;
 * - `reencrypted`: a secret was moved to the current encryption key;
 * - `policy-changed`: INSTITUTION_CREDENTIALS gave a stored pair another {@link SignaturePolicy}.
 *
 * The events that give a pair its policy (`issued`, `rotated`, `provisioned`, `policy-changed`)
 * say it in their reason when it is `message-signature` ("requires message signatures").
 */
export const credentialEventKinds = [
  'issued',
  'rotated',
  'expiry-set',
  'revoked',
  'provisioned',
  'secret-replaced',
  'provision-skipped',
  'encrypted',
  'reencrypted',
  'policy-changed',
] as const;

/** One of {@link credentialEventKinds}. */
export type CredentialEventKind = (typeof credentialEventKinds)[number];

/** One change of a key pair, on record (spec: "Assumptions", credentials). */
export interface CredentialEvent {
  at: Date;
  publicKey: string;
  institution: string;
  what: CredentialEventKind;
  reason: string | null;
  /** The OS user who ran the command, or `start` for what a server start did. */
  actor: string;
}

/** Options of {@link Storage.issueCredential}. */
export interface IssueOptions {
  /** Who issues it (an OS user, or `start`). */
  actor: string;
  /** When the new pair expires; null: never. */
  expiresAt: Date | null;
  /** Recorded with the event (e.g. "demo institution"). */
  reason?: string | null;
  /**
   * A rotation: the institution must exist already, and each of its other pairs that is neither
   * revoked nor set to expire before `othersExpireAt` is set to expire then.
   */
  rotation?: { othersExpireAt: Date };
}

/** What {@link Storage.issueCredential} did. */
export interface IssuedCredential {
  issued: CredentialRecord;
  /** A rotation's other pairs whose expiry it set. */
  expiring: CredentialRecord[];
  events: CredentialEvent[];
}

/** What {@link Storage.revokeCredential} found. */
export interface RevokedCredential {
  record: CredentialRecord;
  /** True when the pair was revoked before this call (nothing changed, no event). */
  alreadyRevoked: boolean;
  events: CredentialEvent[];
}

/** A message signature's nonce, to be used once per key pair (see {@link Storage.claimNonce}). */
export interface NonceClaim {
  /** The key pair's public key (the signature's `keyid`). */
  publicKey: string;
  nonce: string;
  /** From then on the signature is stale, and the nonce may be used again. */
  expiresAt: Date;
  /** The server's clock: rows whose `expiresAt` is at or before it count as absent. */
  now: Date;
}

/** Everything the server persists. Every call is one database transaction. */
export interface Storage {
  /**
   * New user (created: true), or the existing user with this ghanaCardNumber, with its STORED
   * details unchanged (created: false), when the caller may have it (spec Assumptions,
   * "Existing users"): it already belongs to the institution, or the request carries its mobileNumber,
   * and then it is added to the institution. Throws ExistsWithOtherDetailsError otherwise, and
   * ConflictError('email') when a NEW user would take another user's email. Race-free: creates of
   * one person running at once give one user.
   *
   * With `nonce` (a signed request's), the nonce is claimed in the same transaction as the write,
   * as {@link claimNonce} claims it: one commit for both. A nonce used before: ReplayedNonceError,
   * nothing written. The call resolves only with the nonce recorded; when it throws anything else,
   * the nonce was not recorded.
   */
  createOrAddUser(
    institutionId: string,
    details: UserDetails,
    nonce?: NonceClaim,
  ): Promise<{ created: boolean; user: StoredUser }>;
  /**
   * Replace the details of a user that belongs to the institution; null when it does not (or does
   * not exist). The details are one record shared by every member institution (spec
   * Assumptions, "One shared record"): all of them see the change. Throws ConflictError('email'|'ghanaCardNumber')
   * when taken by another user. Account: keep the account id/createdAt when type+number are
   * unchanged, otherwise replace the account (new id); details.account null removes it.
   *
   * With `nonce`: claimed in the same transaction, as {@link createOrAddUser} claims it (null
   * included: the nonce of a request answered "not found" is recorded too).
   */
  updateUser(
    institutionId: string,
    userId: string,
    details: UserDetails,
    nonce?: NonceClaim,
  ): Promise<StoredUser | null>;
  /**
   * For request authentication: the pair with this public key, its secret decrypted, revoked and
   * expired ones included (the caller refuses those exactly as an unknown key); null when none.
   */
  findCredential(publicKey: string): Promise<FoundCredential | null>;
  /**
   * Provisioning (INSTITUTION_CREDENTIALS at start): upserts institutions by name and key pairs by
   * public key (a changed secret replaces the old), except pairs that are revoked or expired,
   * which stay as they are (`provision-skipped`). Returns the events it recorded (none for a pair
   * already stored as given).
   */
  upsertCredentials(list: InstitutionCredential[], actor?: string): Promise<CredentialEvent[]>;
  /**
   * Stores a new key pair (its institution created when new, unless a rotation); null when a
   * rotation names an institution that does not exist. Throws when the public key exists.
   */
  issueCredential(
    credential: InstitutionCredential,
    options: IssueOptions,
  ): Promise<IssuedCredential | null>;
  /** Revokes a key pair at once, with a reason; null when no pair has this public key. */
  revokeCredential(
    publicKey: string,
    options: { actor: string; reason: string | null },
  ): Promise<RevokedCredential | null>;
  /** Every key pair (of one institution, by name), oldest first; never a secret. */
  listCredentials(filter?: { institution?: string }): Promise<CredentialRecord[]>;
  /** Every recorded event (of one institution, by name), oldest first. */
  listCredentialEvents(filter?: { institution?: string }): Promise<CredentialEvent[]>;
  /**
   * Records a message signature's nonce for its key pair: true when it was not recorded yet (or
   * only until a time now past), false when it was, by this process or any other on the database:
   * the request is then a replay (spec: "Assumptions", message signatures). For the requests
   * that write nothing: a write claims its request's nonce itself (`nonce` of createOrAddUser and
   * updateUser). Atomic: of claims of
   * one nonce at once, in any processes, exactly one gets true. Expired rows are deleted a few at a
   * time as claims come in. Fails as unavailable like any other call when the database cannot
   * record it, never answering true without a record.
   */
  claimNonce(claim: NonceClaim): Promise<boolean>;
  /** Sets a pair's "last used" to now (credentials/last-used.ts calls it at most once a minute). */
  recordCredentialUse(publicKey: string): Promise<void>;
  /**
   * Checks that every stored secret opens with the storage's keys (throws EncryptionKeyError, one
   * line, when one does not: a wrong key stops the start), encrypts secrets still stored in clear
   * by an earlier version (`encrypted`), and with `reencrypt` moves those sealed with the previous
   * key to the current one (`reencrypted`). Returns the events it recorded.
   */
  sealCredentialSecrets(options: { actor: string; reencrypt: boolean }): Promise<CredentialEvent[]>;
  countInstitutions(): Promise<number>;
  /**
   * The length of the longest public key stored (0 when none): keys issued or provisioned now are
   * at most `maxPublicKeyLength` (credentials/public-key-bounds.ts), but an earlier release
   * provisioned any length, and its keys keep working.
   */
  longestPublicKey(): Promise<number>;
  /**
   * A counter of `limit` requests per key and `windowSeconds`, kept where every server process on
   * this database sees it: a table of PostgreSQL; the process's memory on SQLite, which serves
   * one server process (see sqlite-server-lock.ts). Its `consume` fails as unavailable like any
   * other call when the database cannot count. `counts` keeps each kind of count apart: the same
   * key counted as `requests` and as `refused-by-key` is two counts (`requests` by default).
   */
  rateLimiter(limit: number, windowSeconds: number, counts?: RateLimitCount): RateLimiter;
  /** Health check: a trivial query. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
