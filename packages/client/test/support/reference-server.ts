/**
 * The real reference server (apps/reference-server, built by turbo before this package's tests:
 * see turbo.json), on an in-memory database and a free port of 127.0.0.1, for the tests where
 * "the service accepts it" is the behaviour under test. Stopped by its PID.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

const main = fileURLToPath(
  new URL('../../../../apps/reference-server/dist/main.js', import.meta.url),
);

/** A running reference server. */
export interface ReferenceServer {
  url: string;
  stop: () => Promise<void>;
}

/** Starts it with one institution holding `credentials`; resolves once `/healthz` answers. */
export async function startReferenceServer(credentials: {
  publicKey: string;
  secretKey: string;
}): Promise<ReferenceServer> {
  if (!existsSync(main)) {
    throw new Error(
      `${main} is missing: build it (npx turbo run build --filter=@institution-api/reference-server)`,
    );
  }
  const port = await freePort();
  const child = spawn(process.execPath, [main], {
    env: {
      ...process.env,
      DATABASE_URL: 'memory://',
      HOST: '127.0.0.1',
      PORT: String(port),
      LOG_LEVEL: 'warn',
      INSTITUTION_CREDENTIALS: JSON.stringify([{ institution: 'Client tests', ...credentials }]),
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
  return { url, stop: () => stop(child) };
}

async function waitForHealth(url: string, child: ChildProcess, output: () => string) {
  const deadline = Date.now() + 30_000;
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
  throw new Error(`the reference server did not become healthy in 30 s:\n${output()}`);
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address
          ? resolve(address.port)
          : reject(new Error('no port')),
      );
    });
  });
}
