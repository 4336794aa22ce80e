import { runCredentialsCommand } from './command/run.js';

/**
 * `npm run issue-credentials -w @institution-api/reference-server -- --institution "Name"`: the
 * command of earlier versions, kept as an alias of `credentials issue` (see command/issue.ts),
 * with its options and output.
 */
process.exitCode = await runCredentialsCommand(process.argv.slice(2), {
  name: 'issue-credentials',
  only: 'issue',
});
