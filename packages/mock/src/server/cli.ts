/**
 * `institution-api-mock`: the mock server from the command line (`--port`, `--host`; keys from
 * `INSTITUTION_CREDENTIALS`, or a demo pair printed when there are none). It stops as the
 * reference server does: on SIGTERM or SIGINT (or, started through `npx`, once npm has gone) it
 * drains the requests in flight for at most `SHUTDOWN_DRAIN_MS`, then exits 0.
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { parseShutdownDrainMs, stopRequested } from '@institution-api/runtime/server-stop';
import { type MockInstitution, parseInstitutions } from '../service/institutions.js';
import { startMockServer } from './mock-server.js';

const usage = `Usage: institution-api-mock [--port 4010] [--host 127.0.0.1]

Serves the User Management Interface from memory, as the reference server answers: both
operations with the service's semantics, signature checks, request validation, and
"Prefer: code=NNN" to force any documented answer. Nothing is kept after it stops.

Options:
  --port <n>   the port (PORT; default 4010; 0: any free port)
  --host <a>   the address to listen on (HOST; default 127.0.0.1)
  --help       this text

Environment:
  INSTITUTION_CREDENTIALS  a JSON array of { "institution", "publicKey", "secretKey" } (and
                           optionally "messageSignature": "required"); without it, a demo pair
                           is made and printed
  SHUTDOWN_DRAIN_MS        after SIGTERM or Ctrl-C, how long requests in flight may take to
                           finish before their connections are cut (default 10000)

SIGTERM or Ctrl-C stops it, also through npx (once npm has gone): it stops accepting, lets the
requests in flight finish within SHUTDOWN_DRAIN_MS, and exits 0.
`;

async function main(): Promise<number> {
  let values: { port?: string; host?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      options: { port: { type: 'string' }, host: { type: 'string' }, help: { type: 'boolean' } },
    }));
  } catch (error) {
    process.stderr.write(`institution-api-mock: ${(error as Error).message}\n\n${usage}`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(usage);
    return 0;
  }
  const portText = values.port ?? process.env.PORT ?? '4010';
  const port = /^\d{1,5}$/.test(portText) ? Number(portText) : Number.NaN;
  if (!(port >= 0 && port <= 65535)) {
    process.stderr.write(`institution-api-mock: --port must be 0 to 65535, not "${portText}".\n`);
    return 2;
  }
  let institutions: MockInstitution[];
  let shutdownDrainMs: number;
  const configured = process.env.INSTITUTION_CREDENTIALS?.trim();
  try {
    institutions = configured ? parseInstitutions(configured) : [];
    shutdownDrainMs = parseShutdownDrainMs(process.env.SHUTDOWN_DRAIN_MS?.trim() || undefined);
  } catch (error) {
    process.stderr.write(`institution-api-mock: ${(error as Error).message}\n`);
    return 2;
  }
  const demo = institutions.length === 0;
  if (demo) {
    institutions = [
      {
        institution: 'Demo Institution',
        publicKey: `demo-${randomBytes(6).toString('hex')}`,
        secretKey: randomBytes(24).toString('base64url'),
      },
    ];
  }
  const server = await startMockServer({
    institutions,
    port,
    host: values.host ?? process.env.HOST ?? '127.0.0.1',
    shutdownDrainMs,
  });
  const lines = [`listening on ${server.url}`];
  if (demo) {
    const [pair] = institutions as [MockInstitution];
    lines.push(
      'No INSTITUTION_CREDENTIALS: a demo institution for this run:',
      `  INSTITUTION_PUBLIC_KEY=${pair.publicKey}`,
      `  INSTITUTION_SECRET_KEY=${pair.secretKey}`,
    );
  } else {
    lines.push(`${institutions.length} key pair(s) from INSTITUTION_CREDENTIALS`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  if ((await stopRequested()) === 'orphaned') {
    process.stderr.write(
      'institution-api-mock: npm, which started it, has exited (SIGTERM to npx?): stopping.\n',
    );
  }
  await server.close();
  return 0;
}

process.exitCode = await main();
