/**
 * A vitest `globalSetup` that starts the run's one PostgreSQL: a workspace whose test files need
 * PostgreSQL lists it in its vitest config, and each file then takes a database of its own in that
 * one server ({@link startPostgresDatabase}) instead of starting a server of its own. Where
 * PostgreSQL cannot start (no binaries, outside CI), it provides nothing and the suites skip as
 * before.
 */
import type { TestProject } from 'vitest/node';
import { postgresUnavailableReason, startPostgres } from './postgres.ts';

/** The key under which the run's PostgreSQL URL is provided to the test files. */
export const runPostgresKey = 'institutionApiPostgresUrl';

declare module 'vitest' {
  export interface ProvidedContext {
    /** postgres://postgres@127.0.0.1:PORT/postgres: the run's one PostgreSQL, when it started. */
    institutionApiPostgresUrl: string | undefined;
  }
}

/**
 * Starts the server before the first test file and stops it after the last. Several files run
 * side by side, each with a few reference servers of ten connections each: hence 300 connections.
 */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | void> {
  if (postgresUnavailableReason()) {
    project.provide(runPostgresKey, undefined);
    return;
  }
  const postgres = await startPostgres({ maxConnections: 300 });
  project.provide(runPostgresKey, postgres.url);
  return () => postgres.stop();
}
