#!/usr/bin/env node
/**
 * The `institution-api-conformance` executable (package.json `bin`); see `cli/main.ts` and
 * `--help`.
 *
 * @module
 */
import { main } from './cli/main.js';

// The proxy runs until it is stopped and then prints its summary; `run` keeps Node's default
// (a stop ends it at once).
const stop = new AbortController();
if (process.argv[2] === 'proxy') {
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => stop.abort(signal));
}

process.exitCode = await main(process.argv.slice(2), {
  env: process.env,
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  terminal: process.stderr.isTTY === true,
  stop: stop.signal,
});
