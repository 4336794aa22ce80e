// @ts-check
// `npm start`: check the Node version, build what the reference server and the `institution-api`
// CLI need (turbo, cached: a second start builds nothing), then run the server IN THIS PROCESS.
//
// Why in this process: the root script is `exec node <heap flags> scripts/start.mjs`, so the
// process npm starts is the server itself. npm forwards SIGINT and SIGTERM to its child; a shell or
// a second npm in between would die of the signal and leave the server running, still holding its
// port and its data. Here a `kill <pid of npm start>` reaches the server, which drains
// and exits, and npm exits with it. The heap flags are the reference server's (its
// docs/performance.md, "Memory"), which Node takes on its command line only.
import './check-node.cjs';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repository = fileURLToPath(new URL('..', import.meta.url));

const build = spawn(
  join(repository, 'node_modules', '.bin', 'turbo'),
  [
    'run',
    'build',
    '--filter=@institution-api/reference-server...',
    // the CLI of the README and the docs (`npx institution-api …`) works right after `npm start`
    '--filter=@institution-api/cli...',
    // and `npx institution-api-conformance run --base-url http://localhost:8080` with the banner's keys
    '--filter=@institution-api/conformance...',
    '--output-logs=errors-only',
  ],
  {
    cwd: repository,
    stdio: 'inherit',
    env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1', REDOCLY_TELEMETRY: 'off' },
  },
);
// A stop during the build stops the build, and this process with it.
const forward = (/** @type {NodeJS.Signals} */ signal) => build.kill(signal);
process.on('SIGINT', forward);
process.on('SIGTERM', forward);
const { code, signal } = await new Promise((resolve, reject) => {
  build.once('error', reject);
  build.once('exit', (exitCode, exitSignal) => resolve({ code: exitCode, signal: exitSignal }));
});
process.off('SIGINT', forward);
process.off('SIGTERM', forward);
if (code !== 0) {
  if (signal === null) process.stderr.write(`npm start: the build failed (exit code ${code}).\n`);
  process.exit(code ?? 1);
}

await import('@institution-api/reference-server/main');
