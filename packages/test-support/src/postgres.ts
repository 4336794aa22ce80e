import { execFile as execFileCallback, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chown, mkdir, mkdtemp, readFile, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { freePort } from './free-port.ts';

const execFile = promisify(execFileCallback);

/**
 * Where a freshly initialized data directory is kept (git-ignored), keyed by PostgreSQL's version
 * and initdb's options: a new server copies it instead of running initdb again, which takes seconds
 * on a quiet machine and tens of seconds on a loaded one, against a fraction of a second to copy.
 */
const clusterCacheDir = fileURLToPath(
  new URL('../node_modules/.cache/postgres-clusters/', import.meta.url),
);

/** initdb's options: the superuser `postgres`, trust authentication, UTF-8, no locale. */
const initdbOptions = ['-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-locale', '--no-sync'];

/** Where the PostgreSQL 15 server binaries are: PG_BIN, or Debian's postgresql-15 package. */
export const postgresBinDir = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin';

/** A PostgreSQL server started for a test suite. */
export interface RunningPostgres {
  /** postgres://postgres@127.0.0.1:PORT/postgres (trust authentication, no password). */
  url: string;
  /** Stops the server and removes its directory. */
  stop(): Promise<void>;
  /**
   * Stops the server as an operator restarting it would (`pg_ctl stop -m fast`: open connections
   * are ended), keeping its data; {@link RunningPostgres.resume} starts it again on the same port.
   */
  pause(): Promise<void>;
  /** Starts a paused server again, on the same port and data. */
  resume(): Promise<void>;
  /**
   * Runs `sql` as the superuser through psql in `database` (default `postgres`), returning its
   * unaligned, tuples-only output.
   */
  psql(sql: string, database?: string): Promise<string>;
}

/** Options of {@link startPostgres}. */
export interface PostgresOptions {
  /**
   * `true`: PostgreSQL's own durable defaults (fsync and full-page writes on), as production runs
   * it, for benchmarks. Default `false`: fsync off, which a test server that need not survive a
   * power loss can afford; never a benchmark figure.
   */
  durable?: boolean;
  /** `max_connections` (PostgreSQL's default: 100). */
  maxConnections?: number;
}

/**
 * Why PostgreSQL cannot be started here, or undefined when it can; a suite that needs it says so
 * with `describeWith('postgres', …)` (requirements.ts), and startPostgres fails with this reason.
 */
export function postgresUnavailableReason(): string | undefined {
  const missing = ['initdb', 'pg_ctl', 'psql'].filter(
    (bin) => !existsSync(join(postgresBinDir, bin)),
  );
  return missing.length === 0
    ? undefined
    : `PostgreSQL server binaries (${missing.join(', ')}) not found in ${postgresBinDir}: ` +
        'apt-get install postgresql-15 (or set PG_BIN)';
}

/**
 * Starts a throwaway PostgreSQL 15 in a fresh temporary directory, on 127.0.0.1 and a free port,
 * with trust authentication and, unless `durable`, fsync off. PostgreSQL refuses to run as root,
 * so as root it runs as the `postgres` system user (created if missing).
 */
export async function startPostgres(options: PostgresOptions = {}): Promise<RunningPostgres> {
  const unavailable = postgresUnavailableReason();
  if (unavailable) throw new Error(unavailable);
  const asRoot = process.getuid?.() === 0;
  if (asRoot) await ensurePostgresUser();
  const dir = await mkdtemp(join(tmpdir(), 'reference-server-pg-'));
  const dataDir = join(dir, 'data');
  const logFile = join(dir, 'postgres.log');
  /** A PostgreSQL program's command line, run as the `postgres` user when this runs as root. */
  const commandOf = (bin: string, args: string[]) => [
    ...(asRoot ? ['runuser', '-u', 'postgres', '--'] : []),
    join(postgresBinDir, bin),
    ...args,
  ];
  const run = (bin: string, args: string[]) => {
    const [file = '', ...rest] = commandOf(bin, args);
    return execFile(file, rest, { cwd: dir });
  };
  const stopArgs = ['-D', dataDir, '-m', 'immediate', '-w', 'stop'];
  const settings = [
    '-c listen_addresses=127.0.0.1',
    `-k '${dir}'`,
    ...(options.durable ? [] : ['-c fsync=off', '-c full_page_writes=off']),
    ...(options.maxConnections ? [`-c max_connections=${options.maxConnections}`] : []),
  ];
  const pgCtlStart = (port: number) =>
    run('pg_ctl', [
      '-D',
      dataDir,
      '-l',
      logFile,
      '-o',
      `-p ${port} ${settings.join(' ')}`,
      '-w',
      '-t',
      '60',
      'start',
    ]);
  const startFailure = async (error: unknown) => {
    const log = await readFile(logFile, 'utf8').catch(() => '');
    return new Error(`PostgreSQL did not start: ${(error as Error).message}\n${log}`);
  };
  try {
    if (asRoot) {
      const { uid, gid } = postgresUserIds();
      await chown(dir, uid, gid);
    }
    await initializeDataDir(dataDir, run);
    // A free port can be taken between our probe and the server's bind: try a few.
    for (let attempt = 1; ; attempt++) {
      const port = await freePort();
      try {
        await pgCtlStart(port);
      } catch (error) {
        if (attempt < 3) continue;
        throw await startFailure(error);
      }
      let paused = false;
      const watchdog = stopWhenGone(process.pid, dir, commandOf('pg_ctl', stopArgs));
      return {
        url: `postgres://postgres@127.0.0.1:${port}/postgres`,
        async stop() {
          try {
            if (!paused) await run('pg_ctl', stopArgs);
          } finally {
            watchdog.end();
            await rm(dir, { recursive: true, force: true });
          }
        },
        async pause() {
          await run('pg_ctl', ['-D', dataDir, '-m', 'fast', '-w', 'stop']);
          paused = true;
        },
        async resume() {
          await pgCtlStart(port).catch(async (error) => {
            throw await startFailure(error);
          });
          paused = false;
        },
        async psql(sql, database = 'postgres') {
          const { stdout } = await run('psql', [
            '-h',
            '127.0.0.1',
            '-p',
            String(port),
            '-U',
            'postgres',
            '-d',
            database,
            '-v',
            'ON_ERROR_STOP=1',
            '-XAtc',
            sql,
          ]);
          return stdout.trim();
        },
      };
    }
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

/**
 * Starts a detached shell that waits for process `pid` to end, then runs `stopCommand` and deletes
 * `dir`. A run that never gets to its teardown (turbo ending vitest because another task failed,
 * Ctrl-C, a kill) would otherwise leave its PostgreSQL running, holding a port and a temporary
 * directory until someone finds its PID. `end()` stops the shell, by its PID, once the server is
 * stopped the ordinary way.
 */
function stopWhenGone(pid: number, dir: string, stopCommand: string[]): { end(): void } {
  const script =
    'pid=$1 dir=$2; shift 2; while kill -0 "$pid" 2>/dev/null; do sleep 1; done; "$@"; rm -rf "$dir"';
  const shell = spawn('sh', ['-c', script, 'postgres-watchdog', String(pid), dir, ...stopCommand], {
    detached: true,
    stdio: 'ignore',
  });
  shell.unref();
  return {
    end() {
      if (shell.pid !== undefined && shell.exitCode === null) {
        try {
          process.kill(-shell.pid);
        } catch {
          // already gone
        }
      }
    },
  };
}

/**
 * Fills `dataDir` with a new cluster: a copy of the cached one (`cp -a`, which keeps the owner and
 * the 0700 mode PostgreSQL insists on), or initdb's output, which is then cached for the next one.
 */
async function initializeDataDir(
  dataDir: string,
  run: (bin: string, args: string[]) => Promise<unknown>,
): Promise<void> {
  const { stdout: version } = await execFile(join(postgresBinDir, 'initdb'), ['--version']);
  const key = createHash('sha256')
    .update(`${version}\0${initdbOptions.join(' ')}\0${process.getuid?.() ?? ''}`)
    .digest('hex')
    .slice(0, 32);
  const cached = join(clusterCacheDir, key);
  if (existsSync(cached)) {
    await execFile('cp', ['-a', cached, dataDir]);
    return;
  }
  await run('initdb', ['-D', dataDir, ...initdbOptions]);
  // Moved into place whole, so that a copy interrupted half way is never used.
  const copying = `${cached}.${process.pid}.tmp`;
  try {
    await mkdir(clusterCacheDir, { recursive: true });
    await execFile('cp', ['-a', dataDir, copying]);
    await rename(copying, cached);
  } catch {
    // another process cached one meanwhile, or the cache is not writable: next time, initdb again
    await rm(copying, { recursive: true, force: true });
  }
}

async function ensurePostgresUser(): Promise<void> {
  if (spawnSync('id', ['-u', 'postgres']).status === 0) return;
  await execFile('useradd', ['--system', 'postgres']);
}

function postgresUserIds(): { uid: number; gid: number } {
  const id = (flag: string) =>
    Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
  return { uid: id('-u'), gid: id('-g') };
}
