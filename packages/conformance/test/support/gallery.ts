/**
 * The gallery of broken implementations: each a fault injected in front of
 * the reference server, and the checks that must catch it.
 */
import { randomUUID } from 'node:crypto';
import { signSync } from '@institution-api/signing/node';
import { authorizationHeader } from '@institution-api/test-support/signed-request';
import type { CheckId } from '../../src/checks/catalog.js';
import type { Fault, FaultAnswer, FaultRequest } from './faulty-server.js';

/** The two institutions of the gallery's reference server. */
export const CREDENTIALS = [
  {
    institution: 'Gallery Lender',
    publicKey: 'gallery-first',
    secretKey: 'gallery-first-secret-0123456789',
  },
  {
    institution: 'Gallery Savings',
    publicKey: 'gallery-second',
    secretKey: 'gallery-second-secret-0123456789',
  },
] as const;

const USERS = '/api/v1/external/users';
const isCreate = (request: FaultRequest) => request.method === 'POST' && request.path === USERS;
const isUpdate = (request: FaultRequest) =>
  request.method === 'PUT' && request.path.startsWith(`${USERS}/`);
const json = (body: Buffer) => {
  try {
    return JSON.parse(body.toString('utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
};
const withJson = (answer: FaultAnswer, value: unknown, status = answer.status): FaultAnswer => ({
  ...answer,
  status,
  body: Buffer.from(JSON.stringify(value)),
});
const secretOf = (publicKey: string | undefined) =>
  CREDENTIALS.find((credential) => credential.publicKey === publicKey)?.secretKey;
const publicKeyOf = (request: FaultRequest) => request.headers.authorization?.split(':')[0];

/** The request with its body replaced and signed again by the key it names (or the first). */
function resigned(
  request: FaultRequest,
  body: Buffer,
  publicKey = publicKeyOf(request),
): FaultRequest {
  const credential =
    CREDENTIALS.find((candidate) => candidate.publicKey === publicKey) ?? CREDENTIALS[0];
  return {
    ...request,
    body,
    headers: {
      ...request.headers,
      authorization: authorizationHeader(credential, body),
    },
  };
}

/** Known properties of the request body, read from the spec (top level and kyc). */
function stripUnknown(value: Record<string, unknown>, known: string[], knownKyc: string[]) {
  const result = Object.fromEntries(Object.entries(value).filter(([key]) => known.includes(key)));
  if (result.kyc && typeof result.kyc === 'object') {
    result.kyc = Object.fromEntries(
      Object.entries(result.kyc).filter(([key]) => knownKyc.includes(key)),
    );
  }
  return result;
}

/** One broken implementation: its fault and the checks any of which must catch it. */
export interface GalleryCase {
  name: string;
  caughtBy: CheckId[];
  fault: (spec: { userInputProperties: string[]; kycProperties: string[] }) => Fault;
}

export const GALLERY: GalleryCase[] = [
  {
    name: 'a 500 on some valid input (a non-null otherName)',
    caughtBy: ['not_a_server_error'],
    fault: () => async (request, forward) => {
      if (
        (isCreate(request) || isUpdate(request)) &&
        typeof json(request.body)?.otherName === 'string'
      ) {
        return {
          status: 500,
          headers: { 'content-type': 'application/problem+json' },
          body: Buffer.from(
            JSON.stringify({
              type: 'urn:institution-api:problem:internal',
              title: 'Internal server error',
              status: 500,
            }),
          ),
        };
      }
      return forward(request);
    },
  },
  {
    name: 'invalid data accepted (unknown properties dropped, not refused)',
    caughtBy: ['negative_data_rejection'],
    fault:
      ({ userInputProperties, kycProperties }) =>
      async (request, forward) => {
        const body = json(request.body);
        if (!(isCreate(request) || isUpdate(request)) || !body || !secretOf(publicKeyOf(request)))
          return forward(request);
        return forward(
          resigned(
            request,
            Buffer.from(JSON.stringify(stripUnknown(body, userInputProperties, kycProperties))),
          ),
        );
      },
  },
  {
    name: 'the signature ignored (every request signed again by the key it names)',
    caughtBy: ['auth_enforcement'],
    fault: () => async (request, forward) => forward(resigned(request, request.body)),
  },
  {
    name: 'the signature checked over re-serialized JSON',
    // a signed body written otherwise than JSON.stringify writes it is refused
    caughtBy: ['byte_exactness', 'auth_enforcement'],
    fault: () => async (request, forward) => {
      const [publicKey, signature] = request.headers.authorization?.split(':') ?? [];
      const secret = secretOf(publicKey);
      const body = json(request.body);
      if (!secret || !body) return forward(request);
      const reserialized = signSync(JSON.stringify(body), secret);
      // Verified over the re-serialization: a match passes whatever bytes came, anything else fails.
      if (reserialized === signature) return forward(resigned(request, request.body));
      return forward({
        ...request,
        headers: { ...request.headers, authorization: `${publicKey}:${'0'.repeat(64)}` },
      });
    },
  },
  {
    name: 'the wrong response shape (create answers with the update key image)',
    caughtBy: ['response_schema_conformance'],
    fault: () => async (request, forward) => {
      const answer = await forward(request);
      const body = json(answer.body);
      if (!isCreate(request) || !body || !('userImage' in body)) return answer;
      const { userImage, ...rest } = body;
      return withJson(answer, { ...rest, image: userImage });
    },
  },
  {
    name: 'an undocumented status (202 for a new user)',
    caughtBy: ['status_code_conformance'],
    fault: () => async (request, forward) => {
      const answer = await forward(request);
      return isCreate(request) && answer.status === 201 ? { ...answer, status: 202 } : answer;
    },
  },
  {
    name: 'a wrong content type (problems as application/json)',
    caughtBy: ['content_type_conformance'],
    fault: () => async (request, forward) => {
      const answer = await forward(request);
      return answer.headers['content-type']?.startsWith('application/problem+json')
        ? {
            ...answer,
            headers: { ...answer.headers, 'content-type': 'application/json; charset=utf-8' },
          }
        : answer;
    },
  },
  {
    name: 'an update that does not return what was sent (otherName ignored on update)',
    caughtBy: ['stateful_create_update', 'positive_data_acceptance'],
    fault: () => async (request, forward) => {
      const body = json(request.body);
      if (!isUpdate(request) || !body || !secretOf(publicKeyOf(request))) return forward(request);
      const { otherName: _ignored, ...rest } = body;
      return forward(resigned(request, Buffer.from(JSON.stringify(rest))));
    },
  },
  {
    name: 'a second create of one person answering 201 with a new id',
    caughtBy: ['stateful_create_again'],
    fault: () => async (request, forward) => {
      const answer = await forward(request);
      const body = json(answer.body);
      return isCreate(request) && answer.status === 200 && body
        ? withJson(answer, { ...body, id: randomUUID() }, 201)
        : answer;
    },
  },
  {
    name: 'ids that cannot be updated (create answers another id than it stored)',
    caughtBy: ['stateful_create_update', 'positive_data_acceptance'],
    fault: () => async (request, forward) => {
      const answer = await forward(request);
      const body = json(answer.body);
      return isCreate(request) && answer.status === 201 && body
        ? withJson(answer, { ...body, id: randomUUID() })
        : answer;
    },
  },
  {
    name: "another institution's customer leaked on create (a known card alone is enough)",
    caughtBy: ['stateful_institution_scope'],
    fault: () => {
      const byCard = new Map<string, FaultAnswer>();
      const cardOf = (value: unknown) => String(value).replace(/\D/g, '');
      return async (request, forward) => {
        const answer = await forward(request);
        const sent = json(request.body);
        const body = json(answer.body);
        if (isCreate(request) && answer.status < 300 && body)
          byCard.set(cardOf(body.ghanaCardNumber), answer);
        if (isCreate(request) && answer.status === 409 && sent) {
          const stored = byCard.get(cardOf(sent.ghanaCardNumber));
          if (stored) return { ...stored, status: 200 };
        }
        return answer;
      };
    },
  },
  {
    name: 'another institution allowed to update (a 404 retried as the first institution)',
    caughtBy: ['stateful_institution_scope'],
    fault: () => async (request, forward) => {
      const answer = await forward(request);
      if (
        isUpdate(request) &&
        answer.status === 404 &&
        publicKeyOf(request) === CREDENTIALS[1].publicKey
      ) {
        return forward(resigned(request, request.body, CREDENTIALS[0].publicKey));
      }
      return answer;
    },
  },
  {
    name: 'the 401 tells an unknown key from a wrong signature',
    caughtBy: ['auth_enforcement'],
    fault: () => async (request, forward) => {
      const answer = await forward(request);
      const body = json(answer.body);
      if (answer.status === 401 && body && !secretOf(publicKeyOf(request))) {
        return withJson(answer, { ...body, detail: 'No institution has this public key.' });
      }
      return answer;
    },
  },
  {
    name: 'a 400 that does not name the field',
    caughtBy: ['negative_data_rejection'],
    fault: () => async (request, forward) => {
      const answer = await forward(request);
      const body = json(answer.body);
      if (answer.status !== 400 || !body) return answer;
      const { errors: _errors, ...rest } = body;
      return withJson(answer, { ...rest, detail: 'The request is invalid.' });
    },
  },
  {
    name: 'the create shape written differently (dates without milliseconds)',
    caughtBy: ['tolerant_reading'],
    fault: () => async (request, forward) => {
      const answer = await forward(request);
      if (!isCreate(request) || answer.status >= 300) return answer;
      return {
        ...answer,
        body: Buffer.from(answer.body.toString('utf8').replace(/T00:00:00\.000Z/g, 'T00:00:00Z')),
      };
    },
  },
];
