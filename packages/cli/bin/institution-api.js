#!/usr/bin/env node
// A committed launcher, so npm links the `institution-api` bin at install time even in the
// monorepo, where dist/ is only built afterwards (npm skips a bin whose file does not exist yet).
// In the repository before any build, it says so in one line rather than with a module stack.
import { existsSync } from 'node:fs';

const cli = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(cli)) {
  process.stderr.write(
    'institution-api: the CLI is not built yet: run `npm start` or `npm run build` at the root of the repository first.\n',
  );
  process.exit(2);
}
await import(cli.href);
