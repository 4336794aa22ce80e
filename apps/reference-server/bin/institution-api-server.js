#!/usr/bin/env node
// A committed launcher, so npm links the `institution-api-server` bin at install time even in the
// monorepo, where dist/ is only built afterwards (npm skips a bin whose file does not exist yet).
// Before any build, it says so in one line rather than with a module stack.
import { existsSync } from 'node:fs';

const program = new URL('../dist/bin.js', import.meta.url);
if (!existsSync(program)) {
  process.stderr.write(
    'institution-api-server: the server is not built yet: run `npm run build` at the root of the repository first.\n',
  );
  process.exit(2);
}
await import(program.href);
