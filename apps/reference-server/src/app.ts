import { createSpecSchemas, createUserInputErrors } from '@institution-api/runtime/spec-ajv';
import type { SignatureOptions } from '@institution-api/signing';
import { openapiDocument } from '@institution-api/types';
import compression from 'compression';
import express, { type Express } from 'express';
import type { Logger } from 'pino';
import { cachedCredentials } from './credentials/credential-cache.js';
import { lastUsedRecorder } from './credentials/last-used.js';
import { authenticate } from './http/authenticate.js';
import { contractValidation } from './http/contract.js';
import { corsForOrigins } from './http/cors.js';
import { errorHandler } from './http/error-handler.js';
import { health } from './http/health.js';
import { parseJsonBody } from './http/json-body.js';
import { claimNonceBeforeError, claimNonceNow } from './http/nonce-claims.js';
import {
  agentPage,
  agentPagesFolder,
  defaultDocsPage,
  docsFile,
  docsPage,
  docsSibling,
  docsSiblings,
  specFile,
} from './http/published-files.js';
import { rateLimitPerInstitution } from './http/rate-limit.js';
import { readRawBody } from './http/raw-body.js';
import { type RefusalLimits, refusalCounter } from './http/refusal-limit.js';
import { requestContext } from './http/request-context.js';
import { refuseMalformedHost, routeOnTarget } from './http/request-target.js';
import { methodNotAllowed, notFound } from './http/routing.js';
import { asksForForcedAnswer, sandboxPrefer } from './http/sandbox-prefer.js';
import type { Metrics } from './metrics/metrics.js';
import { operation, recordRequests } from './metrics/request-metrics.js';
import type { OutageLog } from './storage/health/outage-log.js';
import type { Storage } from './storage/types.js';
import { userHandlers } from './users/user-handlers.js';

/** What the HTTP application needs from the outside; `main.ts` wires the real ones. */
export interface AppDependencies {
  storage: Storage;
  logger: Logger;
  /** Signature algorithm and encoding (SIGNATURE_ALGORITHM, SIGNATURE_ENCODING); sha256/hex. */
  signature?: SignatureOptions;
  /**
   * The built docs page served at /docs; by default `@institution-api/docs`'s `dist/index.html`.
   * The files beside it are served too: `/changelog.html`, `/institution-api.postman_collection.json`.
   */
  docsPage?: string;
  /** RATE_LIMIT_PER_MINUTE: authenticated requests per institution and minute; none when absent. */
  rateLimitPerMinute?: number;
  /**
   * RATE_LIMIT_WINDOW_SECONDS (tests only): the window it counts in, and the refusal limits; a
   * minute when absent.
   */
  rateLimitWindowSeconds?: number;
  /**
   * REFUSALS_PER_MINUTE_PER_KEY and REFUSALS_PER_MINUTE_PER_ADDRESS: refused requests allowed per
   * presented public key and per client address before the `429` (http/refusal-limit.ts); none
   * when absent (the server's configuration gives its defaults).
   */
  refusalLimits?: Omit<RefusalLimits, 'windowSeconds'>;
  /**
   * TRUST_PROXY: Express's `trust proxy` (hops, or the proxies' addresses): whose address
   * `req.ip` is, which the refusal limit counts by. The peer's when absent.
   */
  trustProxy?: number | readonly string[];
  /**
   * The longest public key stored (`Storage.longestPublicKey`, read at start): a longer one
   * presented is refused before any lookup; 128 characters when absent or shorter
   * (credentials/public-key-bounds.ts).
   */
  longestPublicKey?: number;
  /** Told of each request answered 503 because the database is unavailable (storage/health/outage-log.ts). */
  outageLog?: Pick<OutageLog, 'refusedRequest'>;
  /** CORS_ALLOW_ORIGINS: origins a docs page hosted elsewhere may call from; none when absent. */
  corsAllowOrigins?: readonly string[];
  /** The metrics every answer is counted in (METRICS_PORT, metrics/metrics.ts); none when absent. */
  metrics?: Metrics;
  /** MESSAGE_SIGNATURE_MAX_AGE_SECONDS: how far a message signature's `created` may be from now. */
  messageSignatureMaxAgeSeconds?: number;
  /**
   * The clock authentication compares expiries and `created` with, and the credential cache's
   * (ms); tests inject one.
   */
  now?: () => number;
  /** SANDBOX_PREFER: `Prefer: code=NNN` forces a documented answer (http/sandbox-prefer.ts); off when absent. */
  sandboxPrefer?: boolean;
  /**
   * SANDBOX_DIAGNOSIS: a `401` for a known key whose signature does not verify says why
   * (http/signature-diagnosis.ts); off when absent, every refusal the one uniform `401`.
   */
  sandboxDiagnosis?: boolean;
  /**
   * PUBLIC_ORIGIN: the origin clients call this server at; a message signature's `@scheme` and
   * `@authority` are its own (http/request-target.ts). Absent: an absolute-form target's, else
   * the `Host` header's.
   */
  publicOrigin?: string;
}

/**
 * The reference server of the User Management Interface as an Express 5 application, without
 * `listen` (tests drive it directly; `main.ts` listens).
 *
 * Every request's target is read first (http/request-target.ts): an absolute-form target is served
 * as its path, and a `Host` that is not an authority alone is a 400, so what a message signature
 * covers is what is routed.
 *
 * Each operation runs, in order: read the raw body (64 KiB at most) → verify the signature over
 * those bytes, then the RFC 9421 message signature when present or required (a refusal counted
 * per client address and public key, with `refusalLimits`: the `429` over a limit) → parse JSON →
 * validate against the spec (express-openapi-validator) → handler, whose response is validated
 * against the spec too. A message signature's nonce is recorded once per key pair in the
 * database by the handler's write, or before any other answer (http/nonce-claims.ts). Unknown
 * paths answer 404 and known paths with another method 405, before authentication. Every error is
 * an RFC 9457 problem.
 *
 * With `corsAllowOrigins`, every answer first gets the CORS headers those origins need (and only
 * those; see http/cors.ts): for a docs page hosted elsewhere whose console calls this server.
 * With `metrics`, every answer is counted in them (metrics/request-metrics.ts); they are served on a
 * listener of their own (metrics/metrics-server.ts), never by this app.
 *
 * `/` and `/docs/` redirect to the docs at `/docs`. The docs page (2.6 MB), the files beside it
 * and the spec files are sent compressed (br or gzip, as the client accepts); the API's answers
 * are not: they are small, and compressing what mixes a caller's input with stored data is how
 * BREACH-style attacks read secrets out of a response. No site may frame the docs' pages (see
 * http/published-files.ts).
 */
export function createApp(deps: AppDependencies): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  if (deps.trustProxy !== undefined) app.set('trust proxy', deps.trustProxy);

  if (deps.metrics) app.use(recordRequests(deps.metrics));
  app.use(requestContext(app, deps.logger));
  app.use(routeOnTarget(deps.publicOrigin));
  if (deps.corsAllowOrigins?.length) app.use(corsForOrigins(deps.corsAllowOrigins));

  const unauthenticated = express.Router({ caseSensitive: true, strict: true });
  // Every file served compressed is text (HTML, JSON, YAML), so each is compressed whatever its
  // type: the default filter passes only types mime-db marks compressible, which
  // `application/yaml` is not, so /openapi.yaml went out whole.
  const compressed = compression({ filter: () => true });
  unauthenticated
    .route('/')
    .get((_req, res) => res.redirect(302, '/docs'))
    .all(methodNotAllowed(['GET', 'HEAD']));
  unauthenticated
    .route('/docs/')
    .get((_req, res) => res.redirect(301, '/docs'))
    .all(methodNotAllowed(['GET', 'HEAD']));
  unauthenticated
    .route('/healthz')
    .get(health(deps.storage))
    .all(methodNotAllowed(['GET', 'HEAD']));
  unauthenticated
    .route('/openapi.yaml')
    .get(compressed, specFile('yaml'))
    .all(methodNotAllowed(['GET', 'HEAD']));
  unauthenticated
    .route('/openapi.json')
    .get(compressed, specFile('json'))
    .all(methodNotAllowed(['GET', 'HEAD']));
  const page = deps.docsPage ?? defaultDocsPage();
  unauthenticated
    .route('/docs')
    .get(compressed, docsPage(page))
    .all(methodNotAllowed(['GET', 'HEAD']));
  for (const [name, { type, what }] of Object.entries(docsSiblings)) {
    unauthenticated
      .route(`/${name}`)
      .get(compressed, docsFile(docsSibling(page, name as keyof typeof docsSiblings), type, what))
      .all(methodNotAllowed(['GET', 'HEAD']));
  }
  unauthenticated
    .route(`/${agentPagesFolder}/:name`)
    .get(compressed, agentPage(page))
    .all(methodNotAllowed(['GET', 'HEAD']));

  const claimNonce: Storage['claimNonce'] = (claim) => deps.storage.claimNonce(claim);
  const refusals =
    deps.refusalLimits &&
    refusalCounter(
      deps.storage,
      { ...deps.refusalLimits, windowSeconds: deps.rateLimitWindowSeconds },
      deps.logger,
    );
  const authenticatedOperation = [
    readRawBody(),
    // One clock for a key's expiry and its cached lookup.
    authenticate(
      cachedCredentials(deps.storage, {
        ...(deps.now ? { now: deps.now } : {}),
        ...(deps.longestPublicKey === undefined ? {} : { longestKey: deps.longestPublicKey }),
      }),
      {
        ...(deps.signature ? { signature: deps.signature } : {}),
        ...(deps.now ? { now: deps.now } : {}),
        diagnose: deps.sandboxDiagnosis === true,
        refusals,
        ...(deps.messageSignatureMaxAgeSeconds === undefined
          ? {}
          : { messageSignatureMaxAgeSeconds: deps.messageSignatureMaxAgeSeconds }),
        onAuthenticated: lastUsedRecorder(deps.storage, {
          // The outage log already tells of a database that does not answer.
          onError: (error) =>
            deps.logger.debug(
              { cause: (error as Error).message },
              'last use of a key not recorded',
            ),
        }),
      },
    ),
    // After authentication, so a signature made for another request is the one 401 whatever Host says.
    refuseMalformedHost,
    ...(deps.rateLimitPerMinute
      ? [
          rateLimitPerInstitution(
            deps.storage,
            deps.rateLimitPerMinute,
            deps.rateLimitWindowSeconds,
          ),
        ]
      : []),
    // A forced answer writes nothing: its nonce is recorded before.
    ...(deps.sandboxPrefer
      ? [claimNonceNow(claimNonce, asksForForcedAnswer), sandboxPrefer(openapiDocument)]
      : []),
    parseJsonBody(),
    contractValidation({
      document: openapiDocument,
      bodyErrors: createUserInputErrors(createSpecSchemas(openapiDocument)),
    }),
  ];
  const users = userHandlers(deps.storage);
  const nonceOfError = claimNonceBeforeError(claimNonce);
  // The operation's name is for the metrics alone: without them, no route layer of its own.
  const named = (operationId: 'createUser' | 'updateUser') =>
    deps.metrics ? [operation(operationId)] : [];
  const api = express.Router({ caseSensitive: true, strict: true });
  api
    .route('/api/v1/external/users')
    .post(...named('createUser'), ...authenticatedOperation, users.createUser, nonceOfError)
    .all(refuseMalformedHost, methodNotAllowed(['POST']));
  api
    .route('/api/v1/external/users/:id')
    .put(...named('updateUser'), ...authenticatedOperation, users.updateUser, nonceOfError)
    .all(refuseMalformedHost, methodNotAllowed(['PUT']));
  // The API's routes first: they are what nearly every request is for.
  app.use(api);
  app.use(refuseMalformedHost);
  app.use(unauthenticated);

  app.use(notFound());
  app.use(errorHandler(deps.outageLog));
  return app;
}
