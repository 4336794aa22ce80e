// The reference server's HTTP layer on a storage that is only a Map (no database), for
// bench/http.mjs: it isolates what signatures, spec validation of request and response,
// normalization and logging cost, apart from the database. Not a server to use: nothing persists.
import { randomUUID } from 'node:crypto';
import { createApp } from '../dist/app.js';
import { createLogger } from '../dist/logger.js';
import { ReplayedNonceError } from '../dist/storage/types.js';
import { recognizeOrRefuse } from '../dist/storage/users/recognition.js';

const credentials = new Map(
  JSON.parse(process.env.INSTITUTION_CREDENTIALS ?? '[]').map((c) => [c.publicKey, c]),
);
const userIdByCard = new Map();
const nonces = new Set();
const users = new Map();
const members = new Map();

// A bench drives millions of unique creates through one process: kept for ever, they would fill
// its heap (the server's 512 MB) and the collector's work would grow through the run. A database
// keeps them on disk; this Map keeps the first ones (the users the updates cycle over are among
// them) and then only the latest, as the databases purge nonces past their window.
const keptFirst = 1_000;
const keptLatest = 20_000;
const latest = new Array(keptLatest);
let created = 0;
function remember(user, institutionId) {
  users.set(user.id, user);
  userIdByCard.set(user.ghanaCardNumber, user.id);
  members.set(user.id, new Set([institutionId]));
  created += 1;
  if (created <= keptFirst) return;
  const slot = created % keptLatest;
  const dropped = latest[slot];
  latest[slot] = user.id;
  if (dropped === undefined) return;
  userIdByCard.delete(users.get(dropped)?.ghanaCardNumber);
  users.delete(dropped);
  members.delete(dropped);
}
const maxNonces = 100_000;

function stored(details, existing) {
  const account = details.account && {
    ...details.account,
    id: existing?.account?.id ?? randomUUID(),
    createdAt: existing?.account?.createdAt ?? new Date(),
  };
  return {
    ...details,
    account,
    id: existing?.id ?? randomUUID(),
    documents: [],
    createdAt: existing?.createdAt ?? new Date(),
  };
}

// A message signature's nonce, once per key (the databases keep them in a table, claimed by the
// write a request makes, or alone).
function claimNonce({ publicKey, nonce }) {
  const key = `${publicKey}\n${nonce}`;
  if (nonces.has(key)) return false;
  nonces.add(key);
  if (nonces.size > maxNonces) nonces.delete(nonces.values().next().value);
  return true;
}
function claimFirst(nonce) {
  if (nonce && !claimNonce(nonce)) throw new ReplayedNonceError();
}

/** @type {import('../dist/storage/types.js').Storage} */
const storage = {
  async createOrAddUser(institutionId, details, nonce) {
    claimFirst(nonce);
    const existing = users.get(userIdByCard.get(details.ghanaCardNumber));
    if (existing) {
      const institutions = members.get(existing.id);
      recognizeOrRefuse(
        { isMember: institutions.has(institutionId), mobileNumber: existing.mobileNumber },
        details.mobileNumber,
      );
      institutions.add(institutionId);
      return { created: false, user: existing };
    }
    const user = stored(details);
    remember(user, institutionId);
    return { created: true, user };
  },
  async updateUser(institutionId, userId, details, nonce) {
    claimFirst(nonce);
    if (!members.get(userId)?.has(institutionId)) return null;
    const existing = users.get(userId);
    userIdByCard.delete(existing.ghanaCardNumber);
    const user = stored(details, existing);
    users.set(user.id, user);
    userIdByCard.set(user.ghanaCardNumber, user.id);
    return user;
  },
  async findCredential(publicKey) {
    const found = credentials.get(publicKey);
    return (
      found && {
        institutionId: found.institution,
        institution: found.institution,
        secretKey: found.secretKey,
        expiresAt: null,
        revokedAt: null,
        signaturePolicy: found.messageSignature === 'required' ? 'message-signature' : 'any',
      }
    );
  },
  async claimNonce(claim) {
    return claimNonce(claim);
  },
  // The key lifecycle is the command's; a benchmark of the HTTP layer only authenticates.
  async recordCredentialUse() {},
  async upsertCredentials() {},
  async countInstitutions() {
    return credentials.size;
  },
  async longestPublicKey() {
    return Math.max(0, ...[...credentials.keys()].map((key) => key.length));
  },
  async ping() {},
  async close() {},
};

const logger = createLogger({ level: process.env.LOG_LEVEL ?? 'info' });
createApp({ storage, logger }).listen(Number(process.env.PORT), '127.0.0.1');
