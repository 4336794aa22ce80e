import { describe, expect, it } from 'vitest';
import {
  guardStorage,
  type StorageHealthObserver,
  StorageUnavailableError,
} from '../../src/storage/health/unavailable.js';
import { ConflictError, type Storage } from '../../src/storage/types.js';

const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });

/** A storage whose every call fails with `error`. */
function failingWith(error: unknown): Storage {
  const fail = () => Promise.reject(error);
  return {
    createOrAddUser: fail,
    updateUser: fail,
    findCredential: fail,
    upsertCredentials: fail,
    issueCredential: fail,
    revokeCredential: fail,
    listCredentials: fail,
    listCredentialEvents: fail,
    recordCredentialUse: fail,
    claimNonce: fail,
    sealCredentialSecrets: fail,
    countInstitutions: fail,
    longestPublicKey: fail,
    rateLimiter: () => ({ consume: fail }),
    ping: fail,
    close: () => Promise.resolve(),
  };
}

function recording() {
  const seen: string[] = [];
  const observer: StorageHealthObserver = {
    unavailable: (_error, call) => seen.push(`unavailable ${call}`),
    available: () => seen.push('available'),
  };
  return { seen, observer };
}

const classify = (error: unknown) =>
  (error as { code?: string }).code === 'ECONNREFUSED' ? 'cannot be reached' : undefined;

describe('guardStorage', () => {
  it('turns the faults its classifier names into StorageUnavailableError, keeping the cause', async () => {
    const { seen, observer } = recording();
    const storage = guardStorage(failingWith(refused), classify, observer);
    const error = await storage.findCredential('pk').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StorageUnavailableError);
    expect(error).toMatchObject({ reason: 'cannot be reached', cause: refused });
    await expect(storage.ping()).rejects.toBeInstanceOf(StorageUnavailableError);
    expect(seen).toEqual(['unavailable findCredential', 'unavailable ping']);
  });

  it("guards its rate limiters' counting too: a database that cannot count is unavailable", async () => {
    const { seen, observer } = recording();
    const limiter = guardStorage(failingWith(refused), classify, observer).rateLimiter(30, 60);
    const error = await limiter.consume('institution').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StorageUnavailableError);
    expect(error).toMatchObject({ reason: 'cannot be reached', cause: refused });
    expect(seen).toEqual(['unavailable rateLimit']);
  });

  it('passes other errors through unchanged: a conflict is the database answering', async () => {
    const { seen, observer } = recording();
    const conflict = new ConflictError('email');
    const storage = guardStorage(failingWith(conflict), classify, observer);
    await expect(storage.updateUser('i', 'u', {} as never)).rejects.toBe(conflict);
    const bug = new TypeError('a bug');
    await expect(guardStorage(failingWith(bug), classify).ping()).rejects.toBe(bug);
    expect(seen).toEqual(['available']);
  });
});
