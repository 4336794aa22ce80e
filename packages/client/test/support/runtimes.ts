/**
 * JavaScript runtimes installed from the npm registry, each into a directory of its own in a cache
 * reused between runs (`${XDG_CACHE_HOME:-~/.cache}/institution-api/runtimes/`), so the runtime
 * matrix downloads them once per machine. Each is installed with npm as CI does everything else
 * (install scripts skipped), and its binary is found where its package leaves it then.
 */
import { execFile as execFileCallback } from 'node:child_process';
import { existsSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const execFile = promisify(execFileCallback);

/** Where installed runtimes are kept between runs. */
export const runtimesCacheDir = join(
  process.env.XDG_CACHE_HOME || join(homedir(), '.cache'),
  'institution-api',
  'runtimes',
);

/** This machine's Linux platform, as each package's optional dependencies spell it. */
const arch =
  process.arch === 'arm64'
    ? { bun: 'aarch64', deno: 'aarch64', workerd: 'arm64' }
    : { bun: 'x64', deno: 'x64', workerd: '64' };

/** A command a registry package ships: the package, and where its binary may be once installed. */
export interface RegistryTool {
  /** `name@exact-version`, as `npm install` takes it. */
  spec: string;
  /** Candidate paths of the binary below the install directory, tried in order. */
  binaries: string[];
  /** What `<binary> --version` prints, which must contain this. */
  version: string;
}

/** The runtimes and tools the matrix uses, pinned. */
export const tools = {
  node22: tool('node@22.13.0', ['node_modules/.bin/node'], 'v22.13.0'),
  node24: tool('node@24.21.0', ['node_modules/.bin/node'], 'v24.21.0'),
  bun: tool(
    'bun@1.4.4',
    [
      // the package's own bin, which its skipped postinstall would replace: a real binary here
      'node_modules/bun/bin/bun.exe',
      `node_modules/@oven/bun-linux-${arch.bun}/bin/bun`,
    ],
    '1.4.4',
  ),
  deno: tool(
    'deno@2.9.6',
    ['node_modules/deno/deno', `node_modules/@deno/linux-${arch.deno}-glibc/deno`],
    'deno 2.9.6',
  ),
  workerd: tool(
    'workerd@1.20261117.1',
    [
      'node_modules/workerd/bin/workerd',
      `node_modules/@cloudflare/workerd-linux-${arch.workerd}/bin/workerd`,
    ],
    // workerd prints the compatibility date it supports, which its npm version encodes
    'workerd 2026-11-17',
  ),
  esbuild: tool(
    'esbuild@0.28.2',
    ['node_modules/esbuild/bin/esbuild', `node_modules/@esbuild/linux-${process.arch}/bin/esbuild`],
    '0.28.2',
  ),
} satisfies Record<string, RegistryTool>;

function tool(spec: string, binaries: string[], version: string): RegistryTool {
  return { spec, binaries, version };
}

/** An installed tool: its binary, and the version line it printed. */
export interface InstalledTool {
  binary: string;
  version: string;
}

/**
 * The tool's binary, installed from the npm registry into the cache on first use. Rejects with
 * npm's own message when the registry cannot give it (no network, a version gone, an
 * unsupported platform): a runtime that cannot be installed is a failure, never a skip.
 */
export async function installTool(wanted: RegistryTool): Promise<InstalledTool> {
  const dir = join(runtimesCacheDir, wanted.spec.replace('@', '-'));
  if (!existsSync(dir)) {
    const building = `${dir}.${process.pid}.tmp`;
    await rm(building, { recursive: true, force: true });
    try {
      await execFile(
        'npm',
        [
          'install',
          '--prefix',
          building,
          '--no-save',
          '--no-audit',
          '--no-fund',
          '--loglevel=error',
          wanted.spec,
        ],
        { timeout: 300_000, maxBuffer: 16 << 20 },
      );
      await rename(building, dir);
    } catch (error) {
      await rm(building, { recursive: true, force: true });
      if (!existsSync(dir)) {
        const { stderr, message } = error as { stderr?: string; message: string };
        throw new Error(
          `cannot install ${wanted.spec} from the npm registry into ${runtimesCacheDir}:\n${stderr || message}`,
        );
      }
    }
  }
  const binary = wanted.binaries.map((path) => join(dir, path)).find((path) => existsSync(path));
  if (!binary) {
    throw new Error(
      `${wanted.spec} installed in ${dir}, but none of its binaries is there: ${wanted.binaries.join(', ')}`,
    );
  }
  const { stdout } = await execFile(binary, ['--version'], { timeout: 60_000 });
  if (!stdout.includes(wanted.version)) {
    throw new Error(`${binary} --version printed ${stdout.trim()}, not ${wanted.version}`);
  }
  return { binary, version: stdout.trim().split('\n')[0] ?? '' };
}
