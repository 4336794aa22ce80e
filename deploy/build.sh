#!/bin/sh
# The image's build stage (deploy/Dockerfile), run in the repository's root: every dependency,
# dev ones included, from the lockfile, then turbo's build of the reference server and the
# workspace packages it depends on (the spec bundle, the types, signing, the docs page).
# test/deploy.test.mjs runs this same script on a fresh copy of the repository.
set -eu
export TURBO_TELEMETRY_DISABLED=1 REDOCLY_TELEMETRY=off
npm ci --no-audit --no-fund
npx --no-install turbo run build --filter=@institution-api/reference-server... --output-logs=errors-only
