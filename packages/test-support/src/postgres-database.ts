/**
 * A database of its own for a test file, in the run's one PostgreSQL (started by
 * `postgres-global-setup.ts`), so that a run starts one server instead of one per file.
 */
import { execFile as execFileCallback } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { inject } from 'vitest';
import { postgresBinDir, type RunningPostgres, startPostgres } from './postgres.ts';
import { runPostgresKey } from './postgres-global-setup.ts';

const execFile = promisify(execFileCallback);

/**
 * An empty database of its own in the run's PostgreSQL, as a {@link RunningPostgres} whose `url`
 * names it, whose `psql` runs in it unless told another database, and whose `stop()` drops it.
 * It shares the server with the other files of the run, so it cannot be paused: a test that stops,
 * restarts or starves the server (the fault tests) takes a server of its own with `startPostgres`.
 * Without the global setup (a vitest config that does not list it), it is a server of its own.
 */
export async function startPostgresDatabase(): Promise<RunningPostgres> {
  const runUrl = inject(runPostgresKey);
  if (!runUrl) return startPostgres();
  const name = `test_${process.pid}_${randomBytes(4).toString('hex')}`;
  const urlOf = (database: string) => runUrl.replace(/\/postgres$/, `/${database}`);
  const psql = async (sql: string, database = name) => {
    const { stdout } = await execFile(join(postgresBinDir, 'psql'), [
      '-d',
      urlOf(database),
      '-v',
      'ON_ERROR_STOP=1',
      '-XAtc',
      sql,
    ]);
    return stdout.trim();
  };
  // a copy of template1, empty as a new server's `postgres` database is
  await psql(`CREATE DATABASE ${name}`, 'postgres');
  const shared = () => {
    throw new Error(
      "the run's PostgreSQL is shared by every test file: use startPostgres() for a server of this test's own to stop or restart",
    );
  };
  return {
    url: urlOf(name),
    psql,
    pause: async () => shared(),
    resume: async () => shared(),
    stop: async () => {
      await psql(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`, 'postgres');
    },
  };
}
