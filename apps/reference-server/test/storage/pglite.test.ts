import { describe } from 'vitest';
import { openPgliteDatabase } from '../../src/storage/pglite-database.js';
import { storageContract } from './storage-contract.js';

describe('storage on in-memory PGlite', () => {
  storageContract(() => openPgliteDatabase('memory://'));
});
