// The signed requests every HTTP benchmark sends: creates with a body of their own each time
// (unique Ghana Card number and email, signed over its own bytes) and updates of seeded users that
// stay valid (each user keeps its own email and card number; only the income changes).
import { randomUUID } from 'node:crypto';
import { formatAuthorization, signBodySync } from '@institution-api/signing/node';
import { createMessageSigner } from '@institution-api/signing/signer';

/** The one institution every benchmarked server is provisioned with (INSTITUTION_CREDENTIALS). */
export const credential = {
  institution: 'Bench Bank',
  publicKey: 'pk_bench',
  secretKey: 'sk_bench_0123456789abcdef0123456789',
};

/**
 * INSTITUTION_CREDENTIALS for a server under benchmark, and the key its secrets are encrypted with
 * (required on PostgreSQL; a build from before it ignores it). A fixed key, as the tests' (base64 of
 * "bench-only key: not for any prod"): never one to use outside a benchmark.
 */
export const credentialsEnv = {
  INSTITUTION_CREDENTIALS: JSON.stringify([credential]),
  CREDENTIALS_ENCRYPTION_KEY: Buffer.from('bench-only key: not for any prod').toString('base64'),
};

/**
 * A second institution, whose key pair requires RFC 9421 message signatures (INSTITUTION_CREDENTIALS
 * `"messageSignature": "required"`): the "message signatures required" rows sign with it, both ways.
 */
export const messageSignatureCredential = {
  institution: 'Bench Bank, message signatures required',
  publicKey: 'pk_bench_msgsig',
  secretKey: 'sk_bench_msgsig_0123456789abcdef0123',
  messageSignature: 'required',
};

/**
 * {@link credentialsEnv} with {@link messageSignatureCredential} beside the first: for the current
 * build only (a build from before message signatures refuses the field and would not start).
 */
export const credentialsWithMessageSignaturesEnv = {
  ...credentialsEnv,
  INSTITUTION_CREDENTIALS: JSON.stringify([credential, messageSignatureCredential]),
};

/** The create path; an update is `${usersPath}/{id}`. */
export const usersPath = '/api/v1/external/users';

let sequence = 0;

/**
 * A valid create body (spec: MomoAccountUser shape, kyc included) with its own Ghana Card number
 * and email on every call, so that every create makes a new user (201), never "already exists".
 */
export function nextUser() {
  sequence += 1;
  return {
    email: `bench.${process.pid}.${sequence}@example.com`,
    firstName: 'Abena',
    lastName: 'Bench',
    mobileNumber: '0241234567',
    ghanaCardNumber: `GHA-${String(sequence).padStart(9, '0')}-${sequence % 10}`,
    monthlyIncome: 1500 + sequence,
    accountType: 'MOMO',
    accountNumber: '0551234567',
    accountName: 'Abena Bench',
    network: 'MTN',
    kyc: { occupation: 'Trader', address: 'Accra', validFrom: '2021-01-01', validTo: '2031-01-01' },
  };
}

/** Sets the body and the headers of an autocannon request (or a fetch init) to `body`, signed. */
export function signed(request, body) {
  const { text, signature } = signBodySync(body, credential.secretKey);
  request.body = text;
  request.headers = {
    'content-type': 'application/json',
    authorization: formatAuthorization(credential, signature),
  };
  return request;
}

/**
 * The message signer the client uses, one per key pair (its key prepared once; a fresh `created`
 * and nonce each call).
 */
const messageSigners = new Map();
function messageSignerOf({ publicKey, secretKey }) {
  let sign = messageSigners.get(publicKey);
  if (!sign) {
    sign = createMessageSigner({ keyId: publicKey, secretKey });
    messageSigners.set(publicKey, sign);
  }
  return sign;
}

/**
 * Sets the body and the headers of an autocannon request to `body` signed both ways, as the client
 * does: the Authorization header and a message signature (`Content-Digest`, `Signature-Input`,
 * `Signature`; a fresh `created` and nonce each time) by `by` ({@link messageSignatureCredential}
 * unless told).
 */
export function signedBothWays(request, body, method, path, by = messageSignatureCredential) {
  const { text, signature } = signBodySync(body, by.secretKey);
  request.body = text;
  request.headers = {
    'content-type': 'application/json',
    authorization: formatAuthorization(by, signature),
    // Only the path is covered (`@path`): the host of the URL does not matter.
    ...messageSignerOf(by)({ method, url: `http://127.0.0.1${path}`, body: text }),
  };
  return request;
}

/**
 * An autocannon request: a signed create of a new user each time. With `messageSignatures`, signed
 * both ways, by the institution whose key pair requires them unless `by` names another key pair
 * (the import's baseline: {@link credential}, whose key pair accepts either, signed both ways as
 * the import signs).
 */
export function createRequest({ messageSignatures = false, by } = {}) {
  return {
    method: 'POST',
    path: usersPath,
    setupRequest: messageSignatures
      ? (request) => signedBothWays(request, nextUser(), 'POST', usersPath, by)
      : (request) => signed(request, nextUser()),
  };
}

/** An autocannon request: signed updates cycling over `users` ({ id, body }), income changed. */
export function updateRequest(users) {
  let next = 0;
  return {
    method: 'PUT',
    setupRequest(request) {
      const user = users[next++ % users.length];
      request.path = `${usersPath}/${user.id}`;
      return signed(request, { ...user.body, monthlyIncome: next });
    },
  };
}

/**
 * Two autocannon requests that each connection sends in turn: a create, then an update of the user
 * that create made (its id read from the answer), so a mixed load needs no seeding.
 */
export function createThenUpdateRequests() {
  return [
    {
      method: 'POST',
      path: usersPath,
      setupRequest(request, context) {
        context.body = nextUser();
        return signed(request, context.body);
      },
      onResponse(status, body, context) {
        if (status === 201) context.id = JSON.parse(body).id;
      },
    },
    {
      method: 'PUT',
      // Without an id (the create failed, which the status count reports) skip to the next create.
      setupRequest(request, context) {
        if (!context.id) return null;
        request.path = `${usersPath}/${context.id}`;
        return signed(request, { ...context.body, monthlyIncome: context.body.monthlyIncome + 1 });
      },
    },
  ];
}

/**
 * Creates `count` users one by one and returns them ({ id, body }) for updates to replace. With
 * `stateless` (a mock such as Prism, whose answers carry a canned id), ids are made up instead.
 */
export async function seedUsers(baseUrl, count, { stateless = false } = {}) {
  const users = [];
  for (let i = 0; i < count; i++) {
    const body = nextUser();
    if (stateless) {
      users.push({ id: randomUUID(), body });
      continue;
    }
    const answer = await fetch(`${baseUrl}${usersPath}`, { method: 'POST', ...signed({}, body) });
    if (answer.status !== 201) {
      throw new Error(`seeding a user answered ${answer.status}: ${await answer.text()}`);
    }
    users.push({ id: (await answer.json()).id, body });
  }
  return users;
}
