/**
 * The reference server of one test file (on PostgreSQL when asked), started before its tests and
 * stopped after them by PID. The start is kept as a promise and awaited before stopping, so a
 * start that outlives its hook's timeout (a loaded machine) still ends with the server stopped
 * rather than left running.
 */
import { type RunningPostgres, startPostgres } from '@institution-api/test-support/postgres';
import {
  type RunningServer,
  startReferenceServer,
} from '@institution-api/test-support/reference-server';
import { afterAll, beforeAll } from 'vitest';
import { CREDENTIALS } from './gallery.js';

/** Registers the hooks in the current suite; the getter gives the running server. */
export function suiteServer({ postgres = false } = {}): () => RunningServer {
  let database: Promise<RunningPostgres | undefined> | undefined;
  let starting: Promise<RunningServer> | undefined;
  let server: RunningServer | undefined;
  beforeAll(async () => {
    database = postgres ? startPostgres() : Promise.resolve(undefined);
    starting = database.then((started) =>
      startReferenceServer({
        credentials: [...CREDENTIALS],
        ...(started ? { databaseUrl: started.url } : {}),
      }),
    );
    server = await starting;
  });
  afterAll(async () => {
    await (await starting?.catch(() => undefined))?.stop();
    await (await database?.catch(() => undefined))?.stop();
  });
  return () => {
    if (!server) throw new Error('the reference server did not start');
    return server;
  };
}
