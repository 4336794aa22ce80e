import type { UserInput } from '@institution-api/types';
import type { RequestHandler } from 'express';
import type { CallingInstitution } from '../http/authenticate.js';
import { HttpProblem, problemKinds } from '../http/problem.js';
import { ConflictError, ExistsWithOtherDetailsError, type Storage } from '../storage/types.js';
import { normalizeUserInput } from './normalize-user-input.js';
import { toUserCreated } from './user-created.js';
import { toUserUpdated } from './user-updated.js';

/**
 * The two operations of the interface, after authentication and request validation have run
 * (`res.locals.institution` is the caller; `req.body` is a valid `UserInput`).
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
     * (DECISIONS.md "success status codes", "existing user recognition").
     */
    async createUser(req, res) {
      const details = normalizeUserInput(req.body as UserInput);
      const { created, user } = await conflictsAs409(
        storage.createOrAddUser(institutionOf(res.locals).id, details),
      );
      res.status(created ? 201 : 200).json(toUserCreated(user));
    },

    /**
     * PUT /api/v1/external/users/{id} (spec: updateUser). Replaces the details; `404` for a user
     * of another institution as for no user at all (DECISIONS.md "institution scope").
     */
    async updateUser(req, res) {
      const details = normalizeUserInput(req.body as UserInput);
      const user = await conflictsAs409(
        storage.updateUser(
          institutionOf(res.locals).id,
          canonicalUuid(String(req.params.id)),
          details,
        ),
      );
      if (!user) {
        throw new HttpProblem(
          problemKinds.notFound,
          'No user with this id belongs to the calling institution.',
        );
      }
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

/**
 * A storage conflict as the spec's 409 (DECISIONS.md "unique email", "existing user recognition").
 * A user that exists with other details is described by the request's own field only: nothing
 * stored is revealed (spec example ExistsWithOtherDetailsProblem).
 */
async function conflictsAs409<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof ExistsWithOtherDetailsError) {
      throw new HttpProblem(
        problemKinds.conflict,
        'A user with this Ghana Card number exists with other details. Nothing was written.',
        [
          {
            path: '/body/ghanaCardNumber',
            message: 'ghanaCardNumber belongs to a user with other details',
          },
        ],
      );
    }
    if (!(error instanceof ConflictError)) throw error;
    const what = error.field === 'email' ? 'The email address' : 'The Ghana Card number';
    throw new HttpProblem(problemKinds.conflict, `${what} belongs to another user.`, [
      { path: `/body/${error.field}`, message: `${error.field} belongs to another user` },
    ]);
  }
}
