// @ts-check
// A Dockerfile's instructions performed on this machine, for machines that have no container
// engine or no registry to pull a base image from. Each stage gets a directory
// that stands for its file system (an image path `/app` of the stage `runtime` is
// `<scratch>/runtime/app`); the base image stands for Node and the shell of this machine. What
// it performs is what the Dockerfile says, read from the file: its exec-form RUN steps run with
// their image paths mapped, COPY copies from the build context (less .dockerignore) or from an
// earlier stage, WORKDIR, ENV and USER set what the later steps and the final command get. Any
// other instruction, or a RUN in shell form, is refused, so a step added to the Dockerfile cannot
// go untested: the test fails until this file performs it.
import { spawn } from 'node:child_process';
import { chmodSync, cpSync, linkSync, mkdirSync } from 'node:fs';
import { dirname, join, matchesGlob, posix } from 'node:path';

/** One instruction: its keyword, upper case, and the rest of its line. @typedef {{ keyword: string; rest: string }} Instruction */
/** A stage: its base image, its name (or its index), its instructions. @typedef {{ base: string; name: string; instructions: Instruction[] }} Stage */
/**
 * A stage as performed: its file system (`root`), and what the image keeps of it.
 *
 * @typedef {{
 *   name: string;
 *   root: string;
 *   workdir: string;
 *   env: Record<string, string>;
 *   user: { uid: number; gid: number } | undefined;
 *   expose: string[];
 *   healthcheck: { options: Record<string, string>; command: string[] } | undefined;
 *   stopSignal: string;
 *   cmd: string[] | undefined;
 * }} PerformedStage
 */
/** The pieces of a line a regular expression reads, or none when it does not match. @param {RegExp} pattern @param {string} text @returns {(string | undefined)[]} */
const pieces = (pattern, text) => [...(pattern.exec(text) ?? [])];

/**
 * The instructions of a Dockerfile: the ARGs before the first FROM, and each stage's
 * instructions in order (comments and blank lines dropped, continued lines joined).
 *
 * @param {string} text
 * @returns {{ args: Record<string, string | undefined>; stages: Stage[] }}
 */
export function parseDockerfile(text) {
  /** @type {Instruction[]} */
  const instructions = [];
  let pending = '';
  for (const line of text.split(/\r?\n/)) {
    if (/^\s*#/.test(line) || (pending === '' && line.trim() === '')) continue;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1)} `;
      continue;
    }
    const whole = `${pending}${line}`.trim();
    pending = '';
    const [, keyword = '', rest = ''] = pieces(/^(\S+)\s*(.*)$/, whole);
    instructions.push({ keyword: keyword.toUpperCase(), rest: rest.trim() });
  }
  /** @type {Record<string, string | undefined>} */
  const args = {};
  /** @type {Stage[]} */
  const stages = [];
  for (const instruction of instructions) {
    if (instruction.keyword === 'FROM') {
      const [, base = '', name] = pieces(/^(\S+)(?:\s+AS\s+(\S+))?$/i, instruction.rest);
      stages.push({ base, name: name ?? String(stages.length), instructions: [] });
    } else if (stages.length === 0) {
      if (instruction.keyword !== 'ARG') {
        throw new Error(`${instruction.keyword} before the first FROM`);
      }
      const [, name = '', value] = pieces(/^(\w+)(?:=(.*))?$/, instruction.rest);
      args[name] = value;
    } else {
      stages.at(-1)?.instructions.push(instruction);
    }
  }
  return { args, stages };
}

/**
 * An exec-form argument list (`["node", "x.js"]`); shell forms are refused.
 *
 * @param {string} keyword @param {string} rest
 * @returns {string[]}
 */
export function execForm(keyword, rest) {
  if (!rest.startsWith('[')) {
    throw new Error(
      `${keyword} ${rest}: only the exec form (a JSON array) is performed here; put the steps in a script of deploy/`,
    );
  }
  return JSON.parse(rest);
}

/** `USER 1000:1000` → `{ uid: 1000, gid: 1000 }` (numeric ids only: nothing resolves names here). @param {string} rest */
function parseUser(rest) {
  const [, uid, gid] = /^(\d+)(?::(\d+))?$/.exec(rest) ?? [];
  if (uid === undefined) throw new Error(`USER ${rest}: give numeric ids (USER 1000:1000)`);
  return { uid: Number(uid), gid: Number(gid ?? uid) };
}

/** `HEALTHCHECK --interval=10s … CMD [...]` → its options and command. @param {string} rest */
function parseHealthcheck(rest) {
  const [, flags, command] = /^((?:--\S+\s+)*)CMD\s+(.*)$/.exec(rest) ?? [];
  if (command === undefined) throw new Error(`HEALTHCHECK ${rest}: expected options and CMD [...]`);
  const options = Object.fromEntries(
    (flags ?? '')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map((flag) => flag.slice(2).split('=')),
  );
  return { options, command: execForm('HEALTHCHECK CMD', command) };
}

/**
 * The files of `context` a build would send: `files` less the patterns of its .dockerignore.
 *
 * @param {string[]} files @param {string} dockerignore
 */
export function buildContextFiles(files, dockerignore) {
  const patterns = dockerignore
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) =>
      line.startsWith('!')
        ? { exclude: false, glob: line.slice(1) }
        : { exclude: true, glob: line },
    );
  // As Docker does: a pattern matching a directory excludes what is in it; the last match wins.
  const excluded = (/** @type {string} */ file) => {
    const parts = file.split('/');
    let verdict = false;
    for (const { exclude, glob } of patterns) {
      const matches = parts.some((_, i) => matchesGlob(parts.slice(0, i + 1).join('/'), glob));
      if (matches) verdict = exclude;
    }
    return verdict;
  };
  return files.filter((file) => !excluded(file));
}

/**
 * Performs every stage of `dockerfile` in `scratch`, with `context` (a directory, and the list of
 * its files a build would send) as the build context, and returns the final stage: its file
 * system, WORKDIR, ENV, USER, EXPOSE, HEALTHCHECK, STOPSIGNAL and CMD, as the image would have
 * them. `runEnv` is the environment RUN steps get besides the stage's ENV (this machine's PATH,
 * npm's cache and registry settings). `log(line)` is told each step as it starts.
 *
 * @param {{
 *   dockerfile: string;
 *   context: { directory: string; files: string[] };
 *   scratch: string;
 *   runEnv: NodeJS.ProcessEnv;
 *   log?: (line: string) => void;
 * }} build
 * @returns {Promise<PerformedStage>}
 */
export async function performDockerfile({ dockerfile, context, scratch, runEnv, log }) {
  const { stages } = parseDockerfile(dockerfile);
  /** @type {Map<string, PerformedStage>} */
  const done = new Map();
  const asRoot = process.getuid?.() === 0;
  for (const stage of stages) {
    /** @type {PerformedStage} */
    const state = {
      name: stage.name,
      root: join(scratch, stage.name),
      workdir: '/',
      env: {},
      user: undefined,
      expose: [],
      healthcheck: undefined,
      stopSignal: 'SIGTERM',
      cmd: undefined,
    };
    // The base image: an empty file system, and this machine's Node at the image's path.
    mkdirSync(join(state.root, 'usr/local/bin'), { recursive: true });
    linkOrCopy(process.execPath, join(state.root, 'usr/local/bin/node'));
    const inImage = (/** @type {string} */ path) =>
      join(state.root, posix.resolve(state.workdir, path));
    for (const { keyword, rest } of stage.instructions) {
      log?.(`[${stage.name}] ${keyword} ${rest}`);
      switch (keyword) {
        case 'ARG':
        case 'LABEL':
          break;
        case 'WORKDIR':
          state.workdir = posix.resolve(state.workdir, rest);
          mkdirSync(inImage('.'), { recursive: true });
          break;
        case 'ENV':
          for (const [, name = '', value = ''] of rest.matchAll(/(\w+)=(\S*)/g))
            state.env[name] = value;
          break;
        case 'COPY': {
          const words = rest.split(/\s+/);
          const flags = Object.fromEntries(
            words.filter((word) => word.startsWith('--')).map((flag) => flag.slice(2).split('=')),
          );
          if (flags.chown) throw new Error('COPY --chown is not performed here');
          const paths = words.filter((word) => !word.startsWith('--'));
          const destination = inImage(paths.pop() ?? '.');
          for (const source of paths) {
            if (flags.from) {
              const from = done.get(flags.from);
              if (!from) throw new Error(`COPY --from=${flags.from}: no such stage before`);
              mkdirSync(destination, { recursive: true });
              cpSync(join(from.root, source), destination, {
                recursive: true,
                verbatimSymlinks: true,
              });
            } else if (source === '.') {
              for (const file of context.files) {
                mkdirSync(dirname(join(destination, file)), { recursive: true });
                cpSync(join(context.directory, file), join(destination, file));
              }
            } else {
              throw new Error(`COPY ${source}: only "." is copied from the build context here`);
            }
          }
          break;
        }
        case 'RUN': {
          const [command = '', ...args] = execForm('RUN', rest);
          const mapped = args.map((arg) => (arg.startsWith('/') ? join(state.root, arg) : arg));
          await run(command === 'node' ? process.execPath : command, asRunUser(mapped), {
            cwd: inImage('.'),
            env: { ...runEnv, ...state.env },
          });
          break;
        }
        case 'USER':
          state.user = parseUser(rest);
          break;
        case 'EXPOSE':
          state.expose.push(...rest.split(/\s+/));
          break;
        case 'HEALTHCHECK':
          state.healthcheck = parseHealthcheck(rest);
          break;
        case 'STOPSIGNAL':
          state.stopSignal = rest;
          break;
        case 'CMD':
          state.cmd = execForm('CMD', rest);
          break;
        default:
          throw new Error(
            `the Dockerfile's ${keyword} is not performed by e2e/test/lib/dockerfile.mjs`,
          );
      }
    }
    done.set(stage.name, state);
  }
  const final = [...done.values()].at(-1);
  if (!final) throw new Error('the Dockerfile has no stage');
  // The image's user must reach its files through the scratch directory (mkdtemp makes it 0700).
  chmodSync(scratch, 0o755);
  chmodSync(final.root, 0o755);
  return final;

  // `install -o 1000 …` can give a file away only as root: any other user stands for the
  // image's user with its own ids (and runs the image's command as itself, below).
  /** @param {string[]} args */
  function asRunUser(args) {
    if (asRoot) return args;
    return args.map((arg, i) =>
      ['-o', '-g'].includes(args[i - 1] ?? '') && /^\d+$/.test(arg)
        ? String(args[i - 1] === '-o' ? process.getuid?.() : process.getgid?.())
        : arg,
    );
  }
}

/**
 * How to run an argument list of the final stage (its CMD, its HEALTHCHECK) as the image would:
 * in its WORKDIR, with its ENV (and `env` on top, as `docker run -e` gives), as its USER when
 * this process may switch users, with image paths mapped and `node` being this machine's Node.
 *
 * @param {PerformedStage} image @param {string[]} argv @param {NodeJS.ProcessEnv} [env]
 * @returns {{ file: string; args: string[]; options: import('node:child_process').SpawnOptions }}
 */
export function commandIn(image, argv, env = {}) {
  const [command = '', ...args] = argv;
  return {
    // the image's Node, which its user can reach (this machine's may be under /root)
    file: command === 'node' ? join(image.root, 'usr/local/bin/node') : command,
    args: args.map((arg) => (arg.startsWith('/') ? join(image.root, arg) : arg)),
    options: {
      cwd: join(image.root, image.workdir),
      env: { PATH: process.env.PATH, ...image.env, ...env },
      ...(process.getuid?.() === 0 && image.user ? image.user : {}),
    },
  };
}

/**
 * Runs a command to its end, rejecting with its output when it fails.
 *
 * @param {string} file @param {string[]} args @param {import('node:child_process').SpawnOptions} options
 * @returns {Promise<string>}
 */
export function run(file, args, options) {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout?.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr?.on('data', (chunk) => {
      output += chunk;
    });
    child.once('error', reject);
    child.once('exit', (code, signal) =>
      code === 0
        ? resolve(output)
        : reject(new Error(`${[file, ...args].join(' ')} exited ${code ?? signal}:\n${output}`)),
    );
  });
}

/** The base image's Node: this machine's, linked (or copied) to where the image has it. @param {string} from @param {string} to */
function linkOrCopy(from, to) {
  try {
    linkSync(from, to);
  } catch {
    cpSync(from, to);
  }
}
