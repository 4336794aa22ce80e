#!/usr/bin/env node
// A committed launcher, so npm links the `institution-api` bin at install time even in the
// monorepo, where dist/ is only built afterwards (npm skips a bin whose file does not exist yet).
import '../dist/cli.js';
