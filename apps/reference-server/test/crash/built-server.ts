import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The built entry point; `npm test` builds it first (turbo's test task depends on build). */
export const mainJs = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

/** A `node dist/main.js` child process. */
export interface BuiltServer {
  child: ChildProcess;
  /** `http://127.0.0.1:PORT`, read from the start banner. */
  baseUrl: string;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (or signal name) when the process ends. */
  exited: Promise<number | string>;
}

/**
 * Starts the built server with `env` (PORT=0 unless given, so it picks a free port) and waits
 * until its banner says where it listens.
 */
export async function startBuiltServer(env: Record<string, string>): Promise<BuiltServer> {
  if (!existsSync(mainJs)) throw new Error(`${mainJs} is missing: run \`npm run build\` first.`);
  const child = spawn(process.execPath, [mainJs], {
    env: { PATH: process.env.PATH ?? '', PORT: '0', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk) => {
    out += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    err += chunk;
  });
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')),
  );
  const port = await Promise.race([
    new Promise<string>((resolve) => {
      const look = () => {
        const found = /listening on http:\/\/[^:]+:(\d+)/.exec(out)?.[1];
        if (found) resolve(found);
        else setTimeout(look, 25);
      };
      look();
    }),
    exited.then((code) => {
      throw new Error(`the server exited (${code}) before listening:\n${err}`);
    }),
  ]);
  return {
    child,
    baseUrl: `http://127.0.0.1:${port}`,
    stdout: () => out,
    stderr: () => err,
    exited,
  };
}
