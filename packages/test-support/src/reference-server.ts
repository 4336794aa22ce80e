/**
 * The built reference server (`@institution-api/reference-server/main`, as `npm start` runs it) in a
 * process of its own on a free port of 127.0.0.1, for tests where "the real service accepts it" is
 * the behaviour under test. Started with the credentials it is given, stopped by its PID.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { freePort } from './free-port.ts';

/**
 * The reference server's entry point, found by its package name (`@institution-api/reference-server/main`):
 * a workspace whose tests start it lists the server in its `devDependencies`, so turbo builds it
 * before they run.
 */
export function referenceServerMain(): string {
  try {
    return createRequire(import.meta.url).resolve('@institution-api/reference-server/main');
  } catch {
    throw new Error(
      'The reference server is not built: build it (npx turbo run build --filter=@institution-api/reference-server), and list @institution-api/reference-server in the devDependencies of the workspace whose tests start it.',
    );
  }
}

/** An institution's key pair, as INSTITUTION_CREDENTIALS provisions it. */
export interface Credential {
  institution: string;
  publicKey: string;
  secretKey: string;
  /** `required`: the key pair refuses a request without a valid RFC 9421 message signature. */
  messageSignature?: 'required' | 'optional';
}

/**
 * CREDENTIALS_ENCRYPTION_KEY for the servers tests start: a fixed key (base64 of the 32 bytes
 * "test-only key: never use in prod"), so that every server of a test on one PostgreSQL shares it,
 * as the reference server requires there. Never use it outside tests.
 */
export const testCredentialsEncryptionKey = Buffer.from(
  'test-only key: never use in prod',
).toString('base64');

/** How to start it. */
export interface ReferenceServerOptions {
  /** The institutions and their key pairs (INSTITUTION_CREDENTIALS). */
  credentials: Credential[];
  /** DATABASE_URL; an in-memory SQLite database (`memory://`) unless given. */
  databaseUrl?: string;
  /**
   * More environment for the server (CORS_ALLOW_ORIGINS, RATE_LIMIT_PER_MINUTE, …). Without a
   * CREDENTIALS_ENCRYPTION_KEY here, the server gets {@link testCredentialsEncryptionKey}.
   */
  env?: Record<string, string>;
  /**
   * The server's entry point: {@link referenceServerMain} unless given (the build of a copy with a
   * changed spec, see spec-variant.ts).
   */
  main?: string;
}

/** A running reference server. */
export interface RunningServer {
  /** http://127.0.0.1:PORT */
  url: string;
  /** The server's process id. */
  pid: number;
  /** What it wrote to stdout and stderr so far (its log lines). */
  output(): string;
  /** SIGTERM, then resolves once the process has exited. */
  stop(): Promise<void>;
  /** SIGKILL, as a crash or an out-of-memory kill ends it; resolves once the process has exited. */
  kill(): Promise<void>;
}

/** Starts the server and resolves once `GET /healthz` answers 200 (60 s at most: a loaded machine). */
export async function startReferenceServer(
  options: ReferenceServerOptions,
): Promise<RunningServer> {
  const main = options.main ?? referenceServerMain();
  if (!existsSync(main)) throw new Error(`${main} is missing: build it first`);
  const port = await freePort();
  const child = spawn(process.execPath, [main], {
    env: {
      ...process.env,
      DATABASE_URL: options.databaseUrl ?? 'memory://',
      HOST: '127.0.0.1',
      PORT: String(port),
      LOG_LEVEL: 'warn',
      INSTITUTION_CREDENTIALS: JSON.stringify(options.credentials),
      CREDENTIALS_ENCRYPTION_KEY: testCredentialsEncryptionKey,
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk: string) => {
    output += chunk;
  };
  child.stdout?.setEncoding('utf8').on('data', collect);
  child.stderr?.setEncoding('utf8').on('data', collect);
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForHealth(url, child, () => output);
  } catch (error) {
    await stop(child);
    throw error;
  }
  return {
    url,
    pid: child.pid ?? 0,
    output: () => output,
    stop: () => stop(child),
    kill: () => stop(child, 'SIGKILL'),
  };
}

async function waitForHealth(url: string, child: ChildProcess, output: () => string) {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      throw new Error(`the reference server exited (${child.exitCode}):\n${output()}`);
    }
    try {
      if ((await fetch(`${url}/healthz`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the reference server did not become healthy in 60 s:\n${output()}`);
}

function stop(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill(signal);
  });
}
