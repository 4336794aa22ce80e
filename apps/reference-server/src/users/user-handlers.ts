import { type ProblemWording, semanticProblems } from '@institution-api/runtime/http';
import type { UserInput } from '@institution-api/types';
import type { RequestHandler } from 'express';
import type { CallingInstitution } from '../http/authenticate.js';
import { writeClaimingNonce } from '../http/nonce-claims.js';
import { HttpProblem } from '../http/problem.js';
import { ConflictError, ExistsWithOtherDetailsError, type Storage } from '../storage/types.js';
import { normalizeUserInput } from './normalize-user-input.js';
import { toUserCreated } from './user-created.js';
import { toUserUpdated } from './user-updated.js';

/**
 * The two operations of the interface, after authentication and request validation have run
 * (`res.locals.institution` is the caller; `req.body` is a valid `UserInput`). Each write claims
 * the request's message-signature nonce in its own transaction (http/nonce-claims.ts).
 */
export function userHandlers(storage: Storage): {
  createUser: RequestHandler;
  updateUser: RequestHandler;
} {
  return {
    /**
     * POST /api/v1/external/users (spec: createUser). `201` for a new user; `200` when a user
     * with this normalized Ghana Card number already existed and belonged to the institution, or
     * was added to it because the request carries its mobile number, with its stored details
     * unchanged; `409` revealing nothing stored when it exists with other details
     * (spec Assumptions, "Status codes", "Existing users").
     */
    async createUser(req, res) {
      const details = normalizeUserInput(req.body as UserInput);
      const { created, user } = await conflictsAs409(
        writeClaimingNonce(res, (nonce) =>
          storage.createOrAddUser(institutionOf(res.locals).id, details, nonce),
        ),
      );
      res.status(created ? 201 : 200).json(toUserCreated(user));
    },

    /**
     * PUT /api/v1/external/users/{id} (spec: updateUser). Replaces the details; `404` for a user
     * of another institution as for no user at all (spec Assumptions, "Institution scope").
     */
    async updateUser(req, res) {
      const details = normalizeUserInput(req.body as UserInput);
      const user = await conflictsAs409(
        writeClaimingNonce(res, (nonce) =>
          storage.updateUser(
            institutionOf(res.locals).id,
            canonicalUuid(String(req.params.id)),
            details,
            nonce,
          ),
        ),
      );
      if (!user) throw problem(semanticProblems.userNotFound);
      res.status(200).json(toUserUpdated(user));
    },
  };
}

/** Who is calling, as `authenticate` left it in `res.locals`. */
function institutionOf(locals: { institution?: CallingInstitution }): CallingInstitution {
  if (!locals.institution) {
    throw new Error('A user operation ran without an authenticated institution.');
  }
  return locals.institution;
}

/**
 * The spec's `format: uuid` (ajv-formats) also admits upper case and a `urn:uuid:` prefix, which
 * the database's uuid type does not all read: one spelling before storage sees it.
 */
function canonicalUuid(id: string): string {
  return id.toLowerCase().replace(/^urn:uuid:/, '');
}

/** The problem of a semantic outcome, in the words the mock uses too. */
function problem(wording: ProblemWording): HttpProblem {
  return new HttpProblem(wording.kind, wording.detail, wording.errors && [...wording.errors]);
}

/**
 * A storage conflict as the spec's 409 (spec: "Assumptions", "Unique email", "Existing users"). A
 * user that exists with other details is described by the request's own field only: nothing
 * stored is revealed (spec example ExistsWithOtherDetailsProblem).
 */
async function conflictsAs409<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof ExistsWithOtherDetailsError) {
      throw problem(semanticProblems.existsWithOtherDetails);
    }
    if (!(error instanceof ConflictError)) throw error;
    throw problem(
      error.field === 'email' ? semanticProblems.emailTaken : semanticProblems.ghanaCardNumberTaken,
    );
  }
}
