import { v7 as uuidV7 } from 'uuid';

/**
 * A new row's id: a UUID version 7 (RFC 9562), which starts with the time in milliseconds. Ids
 * made one after another sort one after another, so a write adds to the last page of each index on
 * them instead of a random page of it. On SQLite that is 2.1 pages of the write-ahead log per
 * create instead of 4.5–4.9 (20,000 creates, 10 in flight): fewer checkpoints, and fewer waits for
 * them. The time an id holds is no secret: the answer's `createdAt` says the same.
 */
export const newId: () => string = uuidV7;
