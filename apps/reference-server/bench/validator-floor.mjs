// A floor of the HTTP layer, for bench/http.mjs and the root `npm run bench`: bare Express 5 with
// `express.json()` and this server's request and response validation (http/contract.ts:
// express-openapi-validator on the bundled spec, with the options and the caches the server gives
// it), answering every create with the spec's `UserCreatedNew` example. No signature, no log, no
// storage: what validating against the spec costs on its own, which the HTTP layer cannot go below
// while it validates with this validator.

import { createSpecSchemas, createUserInputErrors } from '@institution-api/runtime/spec-ajv';
import { openapiDocument } from '@institution-api/types';
import express from 'express';
import { contractValidation } from '../dist/http/contract.js';

const answer = openapiDocument.components.examples.UserCreatedNew.value;
const app = express();
app.post(
  '/api/v1/external/users',
  express.json(),
  contractValidation({
    document: openapiDocument,
    bodyErrors: createUserInputErrors(createSpecSchemas(openapiDocument)),
  }),
  (_req, res) => {
    res.status(201).json(answer);
  },
);
app.listen(Number(process.env.PORT), '127.0.0.1');
