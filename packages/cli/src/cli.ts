#!/usr/bin/env node
/**
 * The `institution-api` executable (package.json `bin`); see `main.ts` and `--help`.
 *
 * @module
 */
import { main } from './main.js';

process.exitCode = await main(process.argv.slice(2), {
  env: process.env,
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
});
