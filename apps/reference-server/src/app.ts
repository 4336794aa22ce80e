import type { SignatureOptions } from '@institution-api/signing';
import { openapiDocument } from '@institution-api/types';
import express, { type Express } from 'express';
import type { Logger } from 'pino';
import { authenticate } from './http/authenticate.js';
import { contractValidation } from './http/contract.js';
import { errorHandler } from './http/error-handler.js';
import { health } from './http/health.js';
import { parseJsonBody } from './http/json-body.js';
import { defaultDocsPage, docsPage, specFile } from './http/published-files.js';
import { readRawBody } from './http/raw-body.js';
import { requestContext } from './http/request-context.js';
import { methodNotAllowed, notFound } from './http/routing.js';
import { createSpecSchemas } from './http/validation/spec-ajv.js';
import { createUserInputErrors } from './http/validation/user-input-errors.js';
import type { Storage } from './storage/types.js';
import { userHandlers } from './users/user-handlers.js';

/** What the HTTP application needs from the outside; `main.ts` wires the real ones. */
export interface AppDependencies {
  storage: Storage;
  logger: Logger;
  /** Signature algorithm and encoding (SIGNATURE_ALGORITHM, SIGNATURE_ENCODING); sha256/hex. */
  signature?: SignatureOptions;
  /** The built docs page served at /docs; by default `@institution-api/docs`'s `dist/index.html`. */
  docsPage?: string;
}

/**
 * The reference server of the User Management Interface as an Express 5 application, without
 * `listen` (tests drive it directly; `main.ts` listens).
 *
 * Each operation runs, in order: read the raw body (64 KiB at most) → verify the signature over
 * those bytes → parse JSON → validate against the spec (express-openapi-validator) → handler, whose
 * response is validated against the spec too. Unknown paths answer 404 and known paths with another
 * method 405, before authentication. Every error is an RFC 9457 problem.
 */
export function createApp(deps: AppDependencies): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);

  app.use(requestContext(deps.logger));
  app.use((_req, res, next) => {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    next();
  });

  const unauthenticated = express.Router({ caseSensitive: true, strict: true });
  unauthenticated
    .route('/healthz')
    .get(health(deps.storage))
    .all(methodNotAllowed(['GET', 'HEAD']));
  unauthenticated
    .route('/openapi.yaml')
    .get(specFile('yaml'))
    .all(methodNotAllowed(['GET', 'HEAD']));
  unauthenticated
    .route('/openapi.json')
    .get(specFile('json'))
    .all(methodNotAllowed(['GET', 'HEAD']));
  unauthenticated
    .route('/docs')
    .get(docsPage(deps.docsPage ?? defaultDocsPage()))
    .all(methodNotAllowed(['GET', 'HEAD']));
  app.use(unauthenticated);

  const operation = [
    readRawBody(),
    authenticate(deps.storage, deps.signature),
    parseJsonBody(),
    ...contractValidation({
      document: openapiDocument,
      bodyErrors: createUserInputErrors(createSpecSchemas(openapiDocument)),
    }),
  ];
  const users = userHandlers(deps.storage);
  const api = express.Router({ caseSensitive: true, strict: true });
  api
    .route('/api/v1/external/users')
    .post(...operation, users.createUser)
    .all(methodNotAllowed(['POST']));
  api
    .route('/api/v1/external/users/:id')
    .put(...operation, users.updateUser)
    .all(methodNotAllowed(['PUT']));
  app.use(api);

  app.use(notFound());
  app.use(errorHandler());
  return app;
}
