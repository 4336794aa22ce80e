import { RUN_DEFAULTS } from '../run/run-conformance.js';

/** The `--help` text. It names the environment variables, never their values. */
export const USAGE = `Usage:
  institution-api-conformance run --base-url URL [options]
  institution-api-conformance proxy --target URL [--port N] [--host H] [--report FILE] [--junit FILE] [--spec FILE|URL]

run: checks a service against the contract with generated requests, signed both ways (the
Authorization header and an RFC 9421 message signature) (valid and invalid
data, authentication, byte exactness, stateful sequences); every failure is shrunk to a minimal
request and printed with a reproduction for bash, curl and openssl.

  --base-url URL                 the service (or INSTITUTION_API_URL)
  --public-key PK --secret-key SK
                                 the institution's keys (or INSTITUTION_PUBLIC_KEY, INSTITUTION_SECRET_KEY)
  --other-public-key PK --other-secret-key SK
                                 a second institution's keys, for the institution-scope checks
                                 (or INSTITUTION_OTHER_PUBLIC_KEY, INSTITUTION_OTHER_SECRET_KEY)
  --spec FILE|URL                the contract (default: the bundled spec of @institution-api/types)
  --seed N                       replay a run (default: random, printed at the end)
  --max-examples N               examples per property (default ${RUN_DEFAULTS.maxExamples})
  --max-requests N               requests at most, shrinking included (default ${RUN_DEFAULTS.maxRequests})
  --time-budget SECONDS          stop sending after this long (default ${RUN_DEFAULTS.timeBudgetSeconds})
  --rate N                       requests per second at most, 0 for no limit (default ${RUN_DEFAULTS.rate})
  --junit FILE                   write a JUnit XML report
  --report FILE                  write an NDJSON report, one line per check and operation
  --algorithm sha256|sha512      the signature's hash (default sha256); must match the service
  --encoding hex|base64          the signature's encoding (default hex); must match the service
  --message-signatures           also check that the key pair's RFC 9421 message signatures are
                                 required and cannot be replayed: a replay, a stale created, a
                                 body or a path changed under the signature, no content-digest
                                 covered, each refused with 401 (for a key pair that requires them)
  --fail-fast                    stop at the first failure (shrunk), without the other checks
  --dry-run                      print the plan and send nothing

  Exit status: 0 when no check failed, 1 when one did, 2 for a usage error or a service that
  cannot be reached.

proxy: forwards every request to --target byte for byte (signatures stay valid), answers with
the target's answer byte for byte, and checks both against the contract. Each violation is
printed on one line and appended to --report; SIGINT or SIGTERM prints a summary and exits 0
when it saw no violation, 1 otherwise.

  --target URL                   where to forward (required)
  --port N --host H              where to listen (default 8090 on 127.0.0.1; 0 for any free port)

  -h, --help                     show this help
`;
