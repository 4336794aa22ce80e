/**
 * HAProxy with the repository's own `deploy/haproxy.cfg` (the load balancer of the compose file)
 * in front of a server a test started, so a test proves what that configuration lets through. The
 * file is used as it is, but for the two addresses only a container network gives: the frontend
 * binds a free port of 127.0.0.1 instead of `:8080`, and the backend's `server:8080` (a compose
 * service name) is the server's address.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './free-port.ts';

/** The configuration compose runs HAProxy with. */
export const deployHaproxyConfig = fileURLToPath(
  new URL('../../../deploy/haproxy.cfg', import.meta.url),
);

/** The haproxy binary: `HAPROXY_BIN`, else the first on PATH, else Debian's `/usr/sbin/haproxy`. */
export function haproxyBinary(): string | undefined {
  if (process.env.HAPROXY_BIN) return process.env.HAPROXY_BIN;
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/usr/local/sbin'];
  return dirs
    .filter((dir) => dir.startsWith('/'))
    .map((dir) => join(dir, 'haproxy'))
    .find((file) => existsSync(file));
}

/**
 * Why HAProxy cannot be started here, or undefined when it can; a suite that needs it says so with
 * `describeWith('haproxy', …)` (requirements.ts).
 */
export function haproxyUnavailableReason(): string | undefined {
  return haproxyBinary()
    ? undefined
    : 'haproxy not found on PATH or in /usr/sbin: apt-get install haproxy (or set HAPROXY_BIN)';
}

/**
 * `config` (deploy/haproxy.cfg's text) with its frontend on `port` of 127.0.0.1 and its backend
 * servers at `backend` (`127.0.0.1:PORT`); nothing else changes. Throws when the file no longer
 * has exactly the lines this replaces, so a change of it is seen here.
 */
export function haproxyConfigFor(config: string, port: number, backend: string): string {
  const replace = (text: string, from: RegExp, to: string) => {
    const found = text.match(new RegExp(from.source, 'gm'))?.length ?? 0;
    if (found !== 1) {
      throw new Error(`deploy/haproxy.cfg: expected one line matching ${from}, found ${found}`);
    }
    return text.replace(new RegExp(from.source, 'm'), to);
  };
  const bound = replace(config, /^(\s*bind) :8080$/, `$1 127.0.0.1:${port}`);
  return replace(bound, /^(\s*server-template server \d+) server:8080$/, `$1 ${backend}`);
}

/** A running HAProxy. */
export interface RunningHaproxy {
  /** http://127.0.0.1:PORT */
  url: string;
  /** What it logged so far (one line per request: `option httplog`). */
  output(): string;
  /** SIGTERM, then resolves once it has exited. */
  stop(): Promise<void>;
}

/**
 * Starts HAProxy with deploy/haproxy.cfg in front of `backendUrl` (`http://127.0.0.1:PORT`), and
 * resolves once `GET /healthz` through it answers 200 (its health checks found the backend up).
 */
export async function startHaproxy(backendUrl: string): Promise<RunningHaproxy> {
  const binary = haproxyBinary();
  if (!binary) throw new Error(haproxyUnavailableReason());
  const port = await freePort();
  const config = haproxyConfigFor(
    await readFile(deployHaproxyConfig, 'utf8'),
    port,
    new URL(backendUrl).host,
  );
  const workDir = await mkdtemp(join(tmpdir(), 'haproxy-'));
  const file = join(workDir, 'haproxy.cfg');
  await writeFile(file, config);
  const child = spawn(binary, ['-db', '-f', file], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const collect = (chunk: string) => {
    output += chunk;
  };
  child.stdout?.setEncoding('utf8').on('data', collect);
  child.stderr?.setEncoding('utf8').on('data', collect);
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    await stopChild(child);
    await rm(workDir, { recursive: true, force: true });
  };
  try {
    await waitForBackend(url, child, () => output);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, output: () => output, stop };
}

async function waitForBackend(url: string, child: ChildProcess, output: () => string) {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null)
      throw new Error(`haproxy exited (${child.exitCode}):\n${output()}`);
    try {
      if ((await fetch(`${url}/healthz`)).status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`haproxy found no backend up in 30 s:\n${output()}`);
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}
