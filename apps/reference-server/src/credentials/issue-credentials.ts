import { parseArgs } from 'node:util';
import { defaultDataDir, openStorage } from '../storage/open-storage.js';
import { issueCredential } from './issue-credential.js';

/**
 * The command that issues an institution a fresh key pair (DECISIONS.md "credentials"):
 *
 *   node dist/credentials/issue-credentials.js --institution "Name"
 *
 * It opens the database DATABASE_URL names (same rules as the server), stores the pair, and prints
 * `{ "institution", "publicKey", "secretKey" }` as JSON on stdout: the only time the secret is shown.
 * Exit codes: 0 issued, 1 failed, 2 wrong usage. It may run while the server runs, on the embedded
 * database too: SQLite locks the file itself and the two processes' writes take turns. A running
 * server finds a new pair at once (its credential cache keeps only keys it found); a replaced
 * secret takes effect there within the cache's lifetime (CREDENTIAL_CACHE_SECONDS).
 */

const usage = `Usage: issue-credentials --institution <name>

Issues a fresh key pair to the institution (created if new) and prints it as JSON.
The database is the one DATABASE_URL names (unset: the embedded database in ${defaultDataDir}).`;

async function main(args: string[]): Promise<number> {
  let values: { institution?: string | undefined; help?: boolean | undefined };
  try {
    ({ values } = parseArgs({
      args,
      options: { institution: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    }));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${usage}\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(`${usage}\n`);
    return 0;
  }
  if (!values.institution?.trim()) {
    process.stderr.write(`--institution is required.\n\n${usage}\n`);
    return 2;
  }
  const storage = await openStorage(process.env.DATABASE_URL, { defaultDataDir });
  try {
    const credential = await issueCredential(storage, values.institution);
    process.stdout.write(`${JSON.stringify(credential, null, 2)}\n`);
  } finally {
    await storage.close();
  }
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    // The message only: a database error's detail may quote the row, secret included.
    process.stderr.write(`issue-credentials: ${(error as Error).message}\n`);
    process.exitCode = 1;
  },
);
