#!/usr/bin/env node
/**
 * The Postman collection of the contract (Postman Collection v2.1), which the docs' build writes
 * as `dist/institution-api.postman_collection.json` beside the page that links it, built from
 * the bundled spec alone (read with the spec toolkit, `@institution-api/runtime/spec`), so that
 * it works as delivered, in Postman and in Newman, with no signing proxy:
 *
 * - collection variables `baseUrl` (the spec's first server, the local sandbox), `publicKey` and
 *   `secretKey` (the institution's keys), and `userId` (the last user created);
 * - a collection-level pre-request script that signs the exact bytes each request sends, as the
 *   spec's `InstitutionSignature` scheme says (`Authorization: <publicKey>:<signature>`,
 *   HMAC-SHA256 in lowercase hex, keyed with the secret key's UTF-8 bytes), with Postman's
 *   CryptoJS;
 * - a collection-level test script that checks every answer against the spec: a status the
 *   operation documents, its media type, and its body against that status's schema (the spec's
 *   own schemas, in the JSON Schema draft 07 that Postman's `jsonSchema` assertion reads);
 * - a journey of requests, each body the operation's named example: create a customer (fresh
 *   Ghana Card number, mobile number and email on every run) → `201`; the same customer again →
 *   `200`, the same id; update that id → `200`, the same id, the details sent.
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import {
  contentOf,
  isObject,
  operationsOf,
  parametersOf,
  requestExamples,
  toJsonSchema,
} from '@institution-api/runtime/spec';

/** The collection's file name in the docs' `dist/`, beside the page that links it. */
export const COLLECTION_FILE = 'institution-api.postman_collection.json';

/**
 * The fields by which the service recognizes a customer (spec: createUser, "Existing users" in the
 * Assumptions: the Ghana Card number, then the mobile number; an email belongs to one user). The
 * collection gives them fresh values on every run, so that its create answers `201`.
 */
const IDENTITY_FIELDS = ['ghanaCardNumber', 'mobileNumber', 'email'];

/**
 * The journey the collection runs, by operationId: the spec's "The same customer again" and
 * "Updating details" in one. `example` is the index of the operation's named request example.
 */
const JOURNEY = [
  {
    operationId: 'createUser',
    name: 'Create a customer',
    example: 0,
    fresh: true,
    status: 201,
    saves: 'userId',
    why: 'a customer no one registered yet: `201`, a new user',
  },
  {
    operationId: 'createUser',
    name: 'Create the same customer again',
    example: 0,
    status: 200,
    sameId: true,
    why: 'the same Ghana Card number: `200`, the user created above, its stored details',
  },
  {
    operationId: 'updateUser',
    name: 'Update that customer',
    example: 1,
    status: 200,
    sameId: true,
    asSent: true,
    why: 'the id created above, with new details: `200`, the details as sent, in the update shape',
  },
];

/** Formats the draft-07 Ajv of Postman's sandbox knows; OpenAPI's numeric ones only document. */
const SANDBOX_FORMATS = new Set(['date', 'date-time', 'email', 'uri', 'uri-reference', 'uuid']);

/** Annotations draft 07 does not read, left out of the collection's schemas. */
const ANNOTATIONS = new Set(['description', 'title', 'examples']);

/**
 * A response schema of the bundle for Postman's `pm.response.to.have.jsonSchema` (Ajv 6, JSON
 * Schema draft 07): self-contained (the toolkit's `toJsonSchema`: `$ref`s inlined, OpenAPI's own
 * keywords and `x-` fields left out), without what draft 07 does not read or Ajv 6 refuses:
 * annotations, and formats it does not know (`double`, `int32`, which only document a number's
 * width).
 *
 * @param {unknown} schema a schema of the document, or a `$ref` to one
 * @param {unknown} document
 * @returns {Record<string, unknown>}
 */
export function sandboxSchema(schema, document) {
  return /** @type {Record<string, unknown>} */ (forSandbox(toJsonSchema(document, schema)));
}

/**
 * @param {unknown} schema a self-contained schema
 * @returns {unknown}
 */
function forSandbox(schema) {
  if (Array.isArray(schema)) return schema.map(forSandbox);
  if (!isObject(schema)) return schema;
  /** @type {Record<string, unknown>} */
  const converted = {};
  for (const [key, value] of Object.entries(schema)) {
    if (ANNOTATIONS.has(key)) continue;
    if (key === 'format' && !SANDBOX_FORMATS.has(String(value))) continue;
    if (key === 'properties' && isObject(value)) {
      converted[key] = Object.fromEntries(
        Object.entries(value).map(([name, property]) => [name, forSandbox(property)]),
      );
    } else if (key === 'const' || key === 'enum' || key === 'default') {
      converted[key] = value;
    } else {
      converted[key] = forSandbox(value);
    }
  }
  return converted;
}

/**
 * Every operation of the bundle that has an `operationId` (the toolkit's `operationsOf`, its
 * parameters by `parametersOf`, an operation's own overriding its Path Item's): method, path, its
 * path as a pattern, and each answer.
 *
 * @param {any} document
 */
function postmanOperations(document) {
  return operationsOf(document).flatMap(({ id, method, path, operation, item }) => {
    if (id === undefined) return [];
    return [
      {
        operationId: id,
        summary: operation.summary,
        method: method.toUpperCase(),
        path,
        // Matched against the end of the request's path, whatever the base URL's own path.
        pattern: `${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`,
        parameters: parametersOf(document, { id, method, path, operation, item }),
        responses: Object.fromEntries(
          Object.entries(isObject(operation.responses) ? operation.responses : {}).map(
            ([status, response]) => {
              const [mediaType, media] = Object.entries(contentOf(document, response))[0] ?? [];
              return [
                status,
                mediaType ? { mediaType, schema: sandboxSchema(media?.schema, document) } : {},
              ];
            },
          ),
        ),
      },
    ];
  });
}

/**
 * A script of `postman/` (plain JavaScript for Postman's sandbox, linted with the rest), as a
 * Postman script: its lines, after a declaration of the data it reads, if any.
 *
 * @param {string} file @param {Record<string, unknown>} [data]
 */
function script(file, data = {}) {
  const text = readFileSync(new URL(`postman/${file}`, import.meta.url), 'utf8');
  const declarations = Object.entries(data).map(
    ([name, value]) => `const ${name} = ${JSON.stringify(value)};`,
  );
  return { type: 'text/javascript', exec: [...declarations, ...text.trimEnd().split('\n')] };
}

/**
 * A named request example of the operation (the toolkit's `requestExamples`), its identity fields
 * made variables.
 *
 * @param {unknown} document @param {string} operationId @param {number} index
 */
function exampleBody(document, operationId, index) {
  const example = requestExamples(document, operationId)[index];
  if (!example) throw new Error(`postman collection: ${operationId} has no example ${index}`);
  const value = /** @type {Record<string, unknown>} */ (structuredClone(example.value));
  for (const field of IDENTITY_FIELDS) {
    if (!(field in value)) {
      throw new Error(
        `postman collection: example ${example.name} of ${operationId} lacks ${field}`,
      );
    }
    // The customer's identity comes from the variables the first request sets.
    value[field] = `{{${field}}}`;
  }
  // A MOMO account's number is the wallet's mobile number (spec: MomoAccountDetails).
  if (value.accountType === 'MOMO') value.accountNumber = '{{mobileNumber}}';
  return { name: example.name, summary: example.summary, value };
}

/**
 * What the update's answer must give back as sent: the names and email of the body (the other
 * fields come back normalized, `+233…`, or in the update's own shape).
 *
 * @param {Record<string, unknown>} body
 */
function sentDetails(body) {
  return Object.fromEntries(
    ['firstName', 'lastName', 'email']
      .filter((field) => field in body)
      .map((field) => [field, body[field]]),
  );
}

/**
 * The collection for a bundled document.
 *
 * @param {any} document the bundle (`dist/openapi.json`), parsed
 * @returns {any} a Postman Collection v2.1
 */
export function postmanCollection(document) {
  const operations = postmanOperations(document);
  const byId = new Map(operations.map((operation) => [operation.operationId, operation]));
  const baseUrl = document.servers?.[0]?.url;
  if (!/^https?:\/\//.test(baseUrl ?? '')) {
    throw new Error(
      `postman collection: the spec's first server is not an absolute URL: ${baseUrl}`,
    );
  }
  const items = JOURNEY.map((step) => {
    const operation = byId.get(step.operationId);
    if (!operation) throw new Error(`postman collection: no operation ${step.operationId}`);
    if (!operation.responses[String(step.status)]) {
      throw new Error(`postman collection: ${step.operationId} documents no ${step.status}`);
    }
    const example = exampleBody(document, step.operationId, step.example);
    const segments = operation.path.split('/').filter(Boolean);
    const pathParameters = operation.parameters.filter((parameter) => parameter.in === 'path');
    return {
      name: step.name,
      event: [
        {
          listen: 'test',
          script: script('journey-step.js', {
            step: {
              status: step.status,
              why: step.why,
              saves: step.saves,
              sameId: step.sameId,
              sent: step.asSent ? sentDetails(example.value) : undefined,
            },
          }),
        },
      ],
      request: {
        method: operation.method,
        description: `${operation.summary} (\`${operation.operationId}\`): ${step.why}. Body: the spec's example ${example.name} (${example.summary}).`,
        header: [{ key: 'Content-Type', value: 'application/json' }],
        body: {
          mode: 'raw',
          raw: JSON.stringify(example.value, null, 2),
          options: { raw: { language: 'json' } },
        },
        url: {
          raw: `{{baseUrl}}/${segments.map((segment) => segment.replace(/^\{(.+)\}$/, ':$1')).join('/')}`,
          host: ['{{baseUrl}}'],
          path: segments.map((segment) => segment.replace(/^\{(.+)\}$/, ':$1')),
          variable: pathParameters.map((parameter) => ({
            key: parameter.name,
            value: '{{userId}}',
            description: parameter.description,
          })),
        },
      },
    };
  });
  return {
    info: {
      name: document.info.title,
      description: `${document.info.summary}\n\nBuilt from the OpenAPI description, version ${document.info.version}. Set publicKey and secretKey (your institution's keys; npm start prints a demo pair) and, for a server other than the local sandbox, baseUrl. The collection signs every request itself, gives the customer fresh identity fields on every run, and checks every answer against the spec.`,
      version: document.info.version,
      schema: 'https://schema.getpostman.com/json/collection/v2.1.0/collection.json',
    },
    variable: [
      {
        key: 'baseUrl',
        value: baseUrl,
        description: `The API's base URL: the spec's first server, ${document.servers[0].description}`,
      },
      { key: 'publicKey', value: '', description: "Your institution's public key." },
      {
        key: 'secretKey',
        value: '',
        description: "Your institution's secret key: it signs, and is never sent.",
      },
      { key: 'userId', value: '', description: 'The id of the user the first request created.' },
      ...IDENTITY_FIELDS.map((key) => ({
        key,
        value: '',
        description: "The customer's, set afresh by the first request of each run.",
      })),
    ],
    event: [
      {
        listen: 'prerequest',
        script: script('sign-request.js', {
          freshCustomerFor: JOURNEY.filter((step) => step.fresh).map((step) => step.name),
        }),
      },
      {
        listen: 'test',
        script: script('check-answer.js', {
          operations: operations.map(({ operationId, method, pattern, responses }) => ({
            operationId,
            method,
            pattern,
            responses,
          })),
        }),
      },
    ],
    item: items,
  };
}
