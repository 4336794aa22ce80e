import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

/** The reference server as `npm start` runs it (apps/reference-server, built by turbo first). */
export const referenceServerMain = fileURLToPath(
  new URL('../../../reference-server/dist/main.js', import.meta.url),
);

/** An institution's key pair, as INSTITUTION_CREDENTIALS provisions it. */
export interface Credential {
  institution: string;
  publicKey: string;
  secretKey: string;
}

/** A running reference server on an in-memory database. */
export interface RunningServer {
  url: string;
  stop: () => Promise<void>;
}

/**
 * Starts the built reference server (`dist/main.js`) with `DATABASE_URL=memory://` on a free port
 * of 127.0.0.1, provisions the credentials, and resolves once `GET /healthz` answers 200.
 */
export async function startReferenceServer(credentials: Credential[]): Promise<RunningServer> {
  if (!existsSync(referenceServerMain)) {
    throw new Error(
      `${referenceServerMain} is missing: build it (npx turbo run build --filter=@institution-api/reference-server)`,
    );
  }
  const port = await freePort();
  const child = spawn(process.execPath, [referenceServerMain], {
    env: {
      ...process.env,
      DATABASE_URL: 'memory://',
      HOST: '127.0.0.1',
      PORT: String(port),
      LOG_LEVEL: 'warn',
      INSTITUTION_CREDENTIALS: JSON.stringify(credentials),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
  });
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
