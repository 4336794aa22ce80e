// @ts-check
// Runs first in `npm start`, `npm test` and `npm run build`: on a Node older than the project's
// `engines.node`, one clear line and exit 1, instead of a stack trace from deep inside a tool.
// CommonJS and plain syntax on purpose: it must run on the very Node versions it turns away.
'use strict';
const { engines } = require('../package.json');
const [wantedMajor = 0, wantedMinor = 0] = (/(\d+)\.(\d+)/.exec(engines.node) || [])
  .slice(1)
  .map(Number);
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
if (major < wantedMajor || (major === wantedMajor && minor < wantedMinor)) {
  process.stderr.write(
    `institution-api needs Node ${engines.node} (24 LTS recommended, see .nvmrc); this is Node ${process.version}.\n`,
  );
  process.exit(1);
}
