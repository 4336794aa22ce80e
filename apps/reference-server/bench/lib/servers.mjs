// The servers the HTTP benchmarks drive, each in a process of its own (its own process group, so
// that stopping `npx prism` stops the node process npx started too): bare Express, the reference
// server's HTTP layer on a Map, the built reference server on any DATABASE_URL, Prism's mock, and
// a throwaway PostgreSQL 15.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { credentialsWithMessageSignaturesEnv } from './requests.mjs';

/** apps/reference-server/, where `dist/main.js` and `bench/` are. */
export const packageDir = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Prism, pinned. 5.16.0 needs Node >= 24.18. Fetched with `npx` (npm's cache, the npm registry
 * only) rather than kept as a devDependency: it brings 213 packages (74 MB) and an install script
 * (@scarf/scarf's analytics postinstall) into every `npm ci`, CI's included, for one benchmark peer.
 */
export const prismVersion = '5.16.0';

/** The bundled spec Prism serves: the same file the reference server validates against. */
export const specYaml = fileURLToPath(import.meta.resolve('@institution-api/types/openapi.yaml'));

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer().once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Every process group started here and not stopped yet, for {@link stopAll} on Ctrl-C. */
const running = new Set();

/**
 * Starts `command` on a free port (PORT) and waits until `ready(baseUrl)` resolves true (polled).
 * Returns { name, baseUrl, pid, stop() }; `pid` is the process `command` started.
 */
export async function startProcess(name, command, args, { env = {}, ready, timeoutMs = 120_000 }) {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const child = spawn(command, args(port), {
    cwd: packageDir,
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
  });
  const signalGroup = (signal) => {
    try {
      process.kill(-child.pid, signal);
    } catch {
      // already gone
    }
  };
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  let exited = false;
  const gone = new Promise((resolve) => child.once('exit', resolve)).then(() => {
    exited = true;
  });
  const handle = {
    name,
    baseUrl,
    pid: child.pid,
    async stop() {
      running.delete(handle);
      if (!exited) {
        signalGroup('SIGTERM');
        const timer = setTimeout(() => signalGroup('SIGKILL'), 15_000);
        await gone;
        clearTimeout(timer);
      }
      signalGroup('SIGKILL'); // whatever npx left behind in the group
    },
    kill: () => signalGroup('SIGKILL'),
  };
  running.add(handle);
  const deadline = Date.now() + timeoutMs;
  while (!(await ready(baseUrl).catch(() => false))) {
    if (exited || Date.now() > deadline) {
      await handle.stop();
      throw new Error(
        `${name} ${exited ? 'exited before it was ready' : `was not ready within ${timeoutMs} ms`}:\n${stderr}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return handle;
}

/** Kills every process group still running (a benchmark interrupted, or failed half-way). */
export function killAll() {
  for (const handle of running) handle.kill();
  running.clear();
}

/** What else must be undone if the benchmark is interrupted: a PostgreSQL cluster, a scratch dir. */
const cleanups = new Set();

/** Registers `cleanup` (async) to run on Ctrl-C; returns the function that unregisters it. */
export function onInterrupt(cleanup) {
  cleanups.add(cleanup);
  return () => cleanups.delete(cleanup);
}

/**
 * On SIGINT or SIGTERM: kill the servers, run the registered cleanups, exit 130. The servers run
 * in process groups of their own, so a Ctrl-C in the terminal does not reach them by itself.
 */
export function stopEverythingOnSignals() {
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.once(signal, async () => {
      process.stderr.write(`\n${signal}: stopping the servers…\n`);
      killAll();
      await Promise.allSettled([...cleanups].map((cleanup) => cleanup()));
      process.exit(130);
    });
  }
}

/**
 * The V8 flags of this package's `start` script, which `npm start` at the root passes too (a test
 * keeps them equal): the benchmarks measure the server as it is started. They bound the young
 * generation and, through the old generation's ceiling, how far V8 lets the old one grow before
 * its first full collection (docs/performance.md, "Memory").
 */
export const serverHeapFlags = JSON.parse(readFileSync(`${packageDir}package.json`, 'utf8'))
  .scripts.start.split(' ')
  .filter((word) => word.startsWith('--'));

const healthy = async (baseUrl) => (await fetch(`${baseUrl}/healthz`)).status === 200;
const answering = async (baseUrl) => (await fetch(`${baseUrl}/healthz`)).status > 0;

/** Express 5, express.json() and a handler echoing the body: the HTTP layer's baseline. */
export function startBareExpress() {
  return startProcess('bare Express 5', process.execPath, () => ['bench/bare-express.mjs'], {
    ready: answering,
  });
}

/** What the validator floor's rows are called. */
export const validatorFloorLabel = 'bare Express 5 + express-openapi-validator';

/**
 * Bare Express with this server's validation against the spec, request and response (see
 * validator-floor.mjs): the floor of the HTTP layer while it validates with express-openapi-validator.
 */
export function startValidatorFloor() {
  return startProcess(validatorFloorLabel, process.execPath, () => ['bench/validator-floor.mjs'], {
    ready: answering,
  });
}

/**
 * The reference server's HTTP layer (createApp) on a Map instead of a database, with both
 * institutions of {@link startReferenceServer}.
 */
export function startMapStorageServer() {
  return startProcess(
    'HTTP layer on a Map',
    process.execPath,
    () => [...serverHeapFlags, 'bench/map-storage-server.mjs'],
    { env: credentialsWithMessageSignaturesEnv, ready: healthy },
  );
}

/**
 * The built reference server (`node <heap flags> dist/main.js`, the process `npm start` runs) on
 * `databaseUrl`, with its default log level, provisioned with the benchmark's credentials: the
 * institution whose key pair accepts the Authorization header alone, and the one whose key pair
 * requires message signatures.
 */
export function startReferenceServer(name, databaseUrl) {
  if (!existsSync(`${packageDir}dist/main.js`)) {
    throw new Error('apps/reference-server/dist/main.js is missing: run `npm run build` first.');
  }
  return startProcess(name, process.execPath, () => [...serverHeapFlags, 'dist/main.js'], {
    env: { ...credentialsWithMessageSignaturesEnv, DATABASE_URL: databaseUrl },
    ready: healthy,
  });
}

/** Prism's mock server on the bundled spec (static examples, its default), through npx. */
export function startPrism() {
  return startProcess(
    `Prism ${prismVersion} mock`,
    'npx',
    (port) => [
      '--yes',
      `@stoplight/prism-cli@${prismVersion}`,
      'mock',
      specYaml,
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
    ],
    {
      env: {
        npm_config_update_notifier: 'false',
        npm_config_prefer_offline: 'true', // npm's cache first: no registry round trip once cached
        SCARF_ANALYTICS: 'false', // Prism's dependency @scarf/scarf reports installs unless told not to
      },
      ready: answering, // Prism answers 404 to a path the spec does not have
      timeoutMs: 300_000, // the first run downloads Prism into npm's cache
    },
  );
}

/**
 * A throwaway PostgreSQL 15 (the tests' harness, @institution-api/test-support/postgres, imported as
 * TypeScript: Node >= 22.18 strips the types), durable by default: fsync and full-page writes on,
 * as production runs it. Returns { url, stop() }, or { unavailable: reason }.
 */
export async function startPostgres({ durable = true } = {}) {
  const harness = await import('@institution-api/test-support/postgres');
  const unavailable = harness.postgresUnavailableReason();
  if (unavailable) return { unavailable };
  const postgres = await harness.startPostgres({ durable });
  const forget = onInterrupt(() => postgres.stop());
  return {
    url: postgres.url,
    stop: () => {
      forget();
      return postgres.stop();
    },
  };
}
