#!/bin/sh
# The image's production install (deploy/Dockerfile), run in a directory holding only what
# stage-runtime.mjs staged: the root manifest and lockfile, and the server's workspace packages as
# npm would pack them. It installs, from the lockfile, the dependencies the server and those
# packages declare for run time, and links the packages; no dev dependency, no build tool.
# test/deploy.test.mjs runs this same script, then starts the server from that directory.
set -eu
npm ci --omit=dev --workspace=@institution-api/reference-server --no-audit --no-fund
