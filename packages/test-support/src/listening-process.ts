/**
 * A program that prints `listening on http://HOST:PORT` once it serves (the CLI's
 * `institution-api sign-proxy`, `institution-api-mock`), started in a process of its own as a
 * user's shell starts it, for the tests that reach it the way other tools do.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';

/** A started program, serving at {@link ListeningProcess.url}. */
export interface ListeningProcess {
  /** The address it printed. */
  url: string;
  child: ChildProcess;
  /** Settles with its exit code and signal once it has exited. */
  exited: Promise<[number | null, NodeJS.Signals | null]>;
  /** Everything it printed so far, stdout and stderr in the order they came. */
  output(): string;
  /** SIGTERM, then resolves once it has exited (at once if it already has). */
  stop(): Promise<void>;
}

/** The line the program prints once it serves; the first group is its address. */
const listeningLine = /^listening on (http:\/\/\S+)$/m;

/** How {@link startListeningProcess} starts the program, beyond its arguments. */
export interface ListeningProcessOptions {
  /** The executable; this Node by default (`npx`: the program as `npx <args>` runs it). */
  command?: string;
  /** The working directory; this process's by default. */
  cwd?: string;
  /**
   * In a process group of its own, which its children keep even once re-parented, so a test can
   * stop whatever is left of it (`process.kill(-child.pid)`).
   */
  detached?: boolean;
}

/**
 * Runs `node <args>` (or `<command> <args>`) with `env` as its whole environment, and resolves
 * once it prints {@link listeningLine}; rejects with its output if it exits first.
 */
export async function startListeningProcess(
  args: string[],
  env: NodeJS.ProcessEnv,
  options: ListeningProcessOptions = {},
): Promise<ListeningProcess> {
  const child = spawn(options.command ?? process.execPath, args, {
    env,
    cwd: options.cwd,
    detached: options.detached,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (text: string) => {
    output += text;
  };
  child.stdout.setEncoding('utf8').on('data', collect);
  child.stderr.setEncoding('utf8').on('data', collect);
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  const url = await new Promise<string>((resolve, reject) => {
    const poll = setInterval(() => {
      const found = listeningLine.exec(output)?.[1];
      if (found) {
        clearInterval(poll);
        resolve(found);
      }
    }, 20);
    void exited.then(([code, signal]) => {
      clearInterval(poll);
      reject(
        new Error(`${args.join(' ')} exited (${code ?? signal}) before listening:\n${output}`),
      );
    });
  });
  return {
    url,
    child,
    exited,
    output: () => output,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
    },
  };
}
