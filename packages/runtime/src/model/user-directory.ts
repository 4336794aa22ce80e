/**
 * The service's semantics as a model: the users of a service, the institutions each belongs to,
 * and what a create or an update does to them, in memory. Pure and runtime-agnostic (no `node:`
 * module): the mock (`@institution-api/mock`) answers with it, and the conformance suite predicts
 * with it what any implementation must answer, so the two cannot disagree.
 *
 * The rules are the spec's "Assumptions" and its operations' descriptions:
 * - **Existing users** are recognized by their Ghana Card number, normalized. A create naming a
 *   user of the calling institution answers its stored details (`200`); a user of other
 *   institutions only is added to the caller when the request also carries its mobile number
 *   (`200`, stored details unchanged), and is otherwise refused revealing nothing (`409`).
 * - **Unique email**: an email (letter case aside) belongs to one user; a new user or an update
 *   that would take another user's email is refused (`409`), as is an update that would take
 *   another user's Ghana Card number.
 * - **Institution scope**: an update of a user the caller does not have is `404`, exactly as an
 *   id nobody has.
 * - **Update replaces** every detail, in one record shared by every member institution. The
 *   account keeps its id and creation time while its type and number stay the same.
 *
 * @module
 */
import type { UserInput } from '@institution-api/types';
import { accountOf, recognize, sameAccount, storedDetails } from '../rules/index.js';
import { type UserDetailsModel, userDetailsModel } from '../user-details.js';

/** The payout account's identity, which the service owns (spec: `AccountCreated.id`). */
export interface AccountIdentity {
  id: string;
  createdAt: string;
}

/** One user as the model holds it. */
export interface ModelUser {
  id: string;
  /** The stored details in the request's shape (see {@link storedDetails}). */
  details: UserInput;
  /** The institutions (by any name the caller chooses) the user belongs to. */
  members: ReadonlySet<string>;
  /** ISO 8601 date-time of the create that made it. */
  createdAt: string;
  /** The account's identity while `details` has an account. */
  account: AccountIdentity | null;
  /** The user's documents (spec: `UserCreated.documents`); the operations never add any. */
  documents: readonly string[];
}

/** What a create did (spec: createUser). */
export type CreateOutcome =
  /** `201`: a new user, belonging to the caller. */
  | { outcome: 'created'; user: ModelUser }
  /** `200`: the existing user, stored details unchanged; `joined` when the caller was added now. */
  | { outcome: 'existing'; user: ModelUser; joined: boolean }
  /** `409`: the card is known with other details; nothing stored may be revealed. */
  | { outcome: 'exists-with-other-details' }
  /** `409`: the new user's email belongs to another user. */
  | { outcome: 'conflict'; field: 'email' };

/** What an update did (spec: updateUser). */
export type UpdateOutcome =
  /** `200`: the details replaced. */
  | { outcome: 'updated'; user: ModelUser }
  /** `404`: no user with this id belongs to the caller. */
  | { outcome: 'not-found' }
  /** `409`: the email or Ghana Card number belongs to another user. */
  | { outcome: 'conflict'; field: 'email' | 'ghanaCardNumber' };

/** The HTTP status the spec gives each outcome. */
export const outcomeStatus = {
  created: 201,
  existing: 200,
  updated: 200,
  'not-found': 404,
  conflict: 409,
  'exists-with-other-details': 409,
} as const satisfies Record<CreateOutcome['outcome'] | UpdateOutcome['outcome'], number>;

/** Options of {@link UserDirectory}. */
export interface UserDirectoryOptions {
  /** A new user's or account's id; `crypto.randomUUID()` by default (the spec's `format: uuid`). */
  newId?: () => string;
  /** The clock of `createdAt`; the current time by default. */
  now?: () => Date;
  /**
   * The details the spec describes (its `UserInput` and answers); the bundled spec's by default,
   * another spec's when a suite checks a service against it.
   */
  details?: UserDetailsModel;
}

interface Entry {
  id: string;
  details: UserInput;
  members: Set<string>;
  createdAt: string;
  account: AccountIdentity | null;
}

const emailKey = (email: string) => email.toLowerCase();

/**
 * The users of one service, in memory: {@link create} and {@link update} with the service's
 * semantics. Request bodies must be valid `UserInput`s (validation comes first in the service).
 */
export class UserDirectory {
  readonly #byId = new Map<string, Entry>();
  readonly #byCard = new Map<string, Entry>();
  readonly #byEmail = new Map<string, Entry>();
  readonly #newId: () => string;
  readonly #now: () => Date;
  readonly #details: UserDetailsModel;

  constructor(options: UserDirectoryOptions = {}) {
    this.#newId = options.newId ?? (() => globalThis.crypto.randomUUID());
    this.#now = options.now ?? (() => new Date());
    this.#details = options.details ?? userDetailsModel;
  }

  /** How many users the directory holds. */
  get size(): number {
    return this.#byId.size;
  }

  /** The user with this id, whoever it belongs to; undefined when none. */
  find(id: string): ModelUser | undefined {
    const entry = this.#byId.get(id);
    return entry && view(entry);
  }

  /** Forgets every user. */
  reset(): void {
    this.#byId.clear();
    this.#byCard.clear();
    this.#byEmail.clear();
  }

  /** A create by `institution` (spec: createUser). */
  create(institution: string, input: UserInput): CreateOutcome {
    const details = storedDetails(input, this.#details);
    const existing = this.#byCard.get(details.ghanaCardNumber);
    if (existing) {
      const recognition = recognize(
        {
          isMember: existing.members.has(institution),
          mobileNumber: existing.details.mobileNumber,
        },
        details.mobileNumber,
      );
      if (recognition === 'member') {
        return { outcome: 'existing', user: view(existing), joined: false };
      }
      if (recognition === 'exists-with-other-details') return { outcome: recognition };
      existing.members.add(institution);
      return { outcome: 'existing', user: view(existing), joined: true };
    }
    if (this.#byEmail.has(emailKey(details.email))) return { outcome: 'conflict', field: 'email' };
    const createdAt = this.#now().toISOString();
    const entry: Entry = {
      id: this.#newId(),
      details,
      members: new Set([institution]),
      createdAt,
      account: accountOf(asRecord(details), this.#details)
        ? { id: this.#newId(), createdAt }
        : null,
    };
    this.#byId.set(entry.id, entry);
    this.#byCard.set(details.ghanaCardNumber, entry);
    this.#byEmail.set(emailKey(details.email), entry);
    return { outcome: 'created', user: view(entry) };
  }

  /** An update by `institution` of the user `id` (spec: updateUser). */
  update(institution: string, id: string, input: UserInput): UpdateOutcome {
    const entry = this.#byId.get(id);
    if (!entry?.members.has(institution)) return { outcome: 'not-found' };
    const details = storedDetails(input, this.#details);
    const byEmail = this.#byEmail.get(emailKey(details.email));
    if (byEmail && byEmail !== entry) return { outcome: 'conflict', field: 'email' };
    const byCard = this.#byCard.get(details.ghanaCardNumber);
    if (byCard && byCard !== entry) return { outcome: 'conflict', field: 'ghanaCardNumber' };
    this.#byEmail.delete(emailKey(entry.details.email));
    this.#byCard.delete(entry.details.ghanaCardNumber);
    const before = accountOf(asRecord(entry.details), this.#details);
    const after = accountOf(asRecord(details), this.#details);
    entry.account =
      after === null
        ? null
        : entry.account && sameAccount(before, after)
          ? entry.account
          : { id: this.#newId(), createdAt: this.#now().toISOString() };
    entry.details = details;
    this.#byEmail.set(emailKey(details.email), entry);
    this.#byCard.set(details.ghanaCardNumber, entry);
    return { outcome: 'updated', user: view(entry) };
  }
}

const asRecord = (details: UserInput) => details as unknown as Record<string, unknown>;

/** A snapshot of an entry: later changes of the directory do not reach it. */
function view(entry: Entry): ModelUser {
  return {
    id: entry.id,
    details: structuredClone(entry.details),
    members: new Set(entry.members),
    createdAt: entry.createdAt,
    account: entry.account && { ...entry.account },
    documents: [],
  };
}
