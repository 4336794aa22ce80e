/**
 * The tab's shared console state: keys in memory unless "remember in this tab" is on, and a
 * history that never holds them.
 */
import { describe, expect, it } from 'vitest';
import { ConsoleSession, type HistoryEntry, historyLimit } from '../../console/src/session.js';

/** sessionStorage's interface over a Map. */
function memoryStorage(): Storage {
  const items = new Map<string, string>();
  return {
    get length() {
      return items.size;
    },
    clear: () => items.clear(),
    getItem: (key) => items.get(key) ?? null,
    key: (index) => [...items.keys()][index] ?? null,
    removeItem: (key) => void items.delete(key),
    setItem: (key, value) => void items.set(key, value),
  };
}

const keys = { publicKey: 'pk_session', secretKey: 'sk_session_0123456789' };
const entry = (n: number): HistoryEntry => ({
  at: new Date(n).toISOString(),
  operationId: 'createUser',
  method: 'POST',
  url: 'http://localhost:8080/api/v1/external/users',
  bytes: 2,
  outcome: '201 Created',
  verdict: 'valid',
  ms: n,
});
const everything = (storage: Storage) =>
  Array.from({ length: storage.length }, (_, i) => storage.getItem(storage.key(i) ?? '')).join();

describe('ConsoleSession', () => {
  it('keeps the keys in memory only, by default', () => {
    const storage = memoryStorage();
    const session = new ConsoleSession(storage, 'http://localhost:8080');
    session.setKeys(keys);
    expect(session.keys).toEqual(keys);
    expect(everything(storage)).not.toContain(keys.secretKey);
    expect(new ConsoleSession(storage, '').keys).toEqual({ publicKey: '', secretKey: '' });
  });

  it('remembers them in the tab when asked, and forgets them when no longer asked', () => {
    const storage = memoryStorage();
    const session = new ConsoleSession(storage, '');
    session.setKeys(keys);
    session.setRemember(true);
    const reopened = new ConsoleSession(storage, '');
    expect(reopened.keys).toEqual(keys);
    expect(reopened.remember).toBe(true);

    reopened.setRemember(false);
    expect(everything(storage)).not.toContain(keys.secretKey);
    expect(new ConsoleSession(storage, '').remember).toBe(false);
  });

  it('keeps the last entries of the history, which hold no key', () => {
    const storage = memoryStorage();
    const session = new ConsoleSession(storage, '');
    session.setKeys(keys);
    for (let n = 1; n <= historyLimit + 5; n++) session.record(entry(n));
    const reopened = new ConsoleSession(storage, '');
    expect(reopened.history).toHaveLength(historyLimit);
    expect(reopened.history[0]?.ms).toBe(6);
    expect(everything(storage)).not.toContain(keys.publicKey);
  });

  it('tells its listeners about every change', () => {
    const session = new ConsoleSession(undefined, '');
    let changes = 0;
    session.addEventListener('change', () => {
      changes += 1;
    });
    session.setBaseUrl('http://localhost:1');
    session.setKeys(keys);
    session.setLastUserId('id');
    session.record(entry(1));
    expect(changes).toBe(4);
  });

  it('works without storage, and with storage that throws', () => {
    const refusing = memoryStorage();
    refusing.setItem = () => {
      throw new DOMException('full', 'QuotaExceededError');
    };
    for (const storage of [undefined, refusing]) {
      const session = new ConsoleSession(storage, '');
      session.setRemember(true);
      session.setKeys(keys);
      session.record(entry(1));
      expect(session.history).toHaveLength(1);
    }
  });
});
