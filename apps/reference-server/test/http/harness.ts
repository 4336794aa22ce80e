import { type IncomingHttpHeaders, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSpecSchemas } from '@institution-api/runtime/spec-ajv';
import type { SignatureOptions } from '@institution-api/signing/node';
import {
  type KeyPair,
  type MessageSignatureChanges,
  signedRequest,
} from '@institution-api/test-support/signed-request';
import { distinctUserBody } from '@institution-api/test-support/user-bodies';
import { openapiDocument, type UserInput } from '@institution-api/types';
import { createApp } from '../../src/app.js';
import { generateCredential } from '../../src/credentials/generate-credential.js';
import { createHttpServer, type HttpTimeouts } from '../../src/http/http-server.js';
import { createLogger } from '../../src/logger.js';
import type { Metrics } from '../../src/metrics/metrics.js';
import { StorageUnavailableError } from '../../src/storage/health/unavailable.js';
import { openStorage } from '../../src/storage/open-storage.js';
import type { InstitutionCredential, Storage } from '../../src/storage/types.js';

/** The spec's component schemas, compiled once, to check response bodies against. */
export const specSchemas = createSpecSchemas(openapiDocument);

/** One JSON log line as pino wrote it. */
export type LogLine = Record<string, unknown> & { level: string; msg: string };

/** A response as the tests look at it. */
export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  body: unknown;
}

/** Options of one request. */
export interface SendOptions {
  /** The body: a value is sent as `JSON.stringify(value)`; a string or bytes exactly as given. */
  body?: unknown;
  /** Who signs; default the first institution; `null` sends no Authorization header. */
  as?: KeyPair | null;
  /** Signature options of the signer (default: the server's). */
  signature?: SignatureOptions;
  /** Extra or replacing headers, whatever their case (set `content-type` here to change it). */
  headers?: Record<string, string>;
  /**
   * An RFC 9421 message signature by the signer as well (`Signature-Input`, `Signature`,
   * `Content-Digest`, by @institution-api/signing): `true` with its defaults (now, a random nonce),
   * or the options to change; none when absent.
   */
  messageSignature?: true | MessageSignatureChanges;
  /** The URL the message signature is made for: the server's base URL and `path` unless given. */
  messageSignatureUrl?: string;
}

/** A signed request as sent, to be sent again as it is (a replay) or changed. */
export interface Captured {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string | Uint8Array | undefined;
}

/** A running app on a real in-memory SQLite database, its captured logs, and signed-request helpers. */
export interface TestServer {
  baseUrl: string;
  storage: Storage;
  institutions: InstitutionCredential[];
  logs(): LogLine[];
  send(method: string, path: string, options?: SendOptions): Promise<Answer>;
  /** The request `send` would make, not sent. */
  prepare(method: string, path: string, options?: SendOptions): Captured;
  /** Sends a prepared (captured) request exactly, or with its path, body or headers changed. */
  sendCaptured(captured: Captured, change?: Partial<Captured>): Promise<Answer>;
  close(): Promise<void>;
}

/**
 * The one signed request of the server's tests, by test-support's helper: `method path` with
 * `options.body`, signed by `options.as` (`null`: not signed) over the exact bytes sent, and with
 * an RFC 9421 message signature for `options.messageSignatureUrl` (`baseUrl` + `path` by default)
 * when asked. For a server this file did not start, too (a process, behind HAProxy).
 */
export function prepareRequest(
  baseUrl: string,
  method: string,
  path: string,
  options: SendOptions & { as: KeyPair | null },
): Captured {
  const { body, as, signature, headers, messageSignature, messageSignatureUrl } = options;
  const request = signedRequest(method, `${baseUrl}${path}`, as, {
    body,
    ...(headers ? { headers } : {}),
    ...(signature ? { authorization: signature } : {}),
    messageSignature: messageSignature
      ? {
          ...(messageSignature === true ? {} : messageSignature),
          ...(messageSignatureUrl ? { url: messageSignatureUrl } : {}),
        }
      : false,
  });
  return { method, path, headers: request.headers, body: request.body };
}

/**
 * Starts `createApp` on an ephemeral port with a real in-memory SQLite database (one per test file) and three institutions, capturing the JSON logs in memory.
 * `wrapStorage` lets a test break a dependency on purpose; `shareWith` reuses a running test
 * server's database, for a second app with other options.
 */
export async function startTestServer(
  options: {
    signature?: SignatureOptions;
    docsPage?: string;
    wrapStorage?: (storage: Storage) => Storage;
    /** Share another test server's storage (and institutions) instead of opening a new one. */
    shareWith?: TestServer;
    rateLimitPerMinute?: number;
    rateLimitWindowSeconds?: number;
    /** REFUSALS_PER_MINUTE_PER_KEY and _PER_ADDRESS; none when absent. */
    refusalLimits?: {
      perKey?: number;
      perAddress?: number;
      slowdown?: { burst: number; perSecond: number; ms: number };
    };
    /** TRUST_PROXY. */
    trustProxy?: number | string[];
    corsAllowOrigins?: string[];
    timeouts?: HttpTimeouts;
    metrics?: Metrics;
    /** Key pairs stored beside the three institutions (e.g. with another signature policy). */
    moreInstitutions?: InstitutionCredential[];
    /** The app's clock (ms), for message signatures' `created`. */
    now?: () => number;
    messageSignatureMaxAgeSeconds?: number;
    /** PUBLIC_ORIGIN: the origin a message signature's `@scheme` and `@authority` are checked against. */
    publicOrigin?: string;
    /** SANDBOX_DIAGNOSIS: a known key's 401 says why its signature failed. */
    sandboxDiagnosis?: boolean;
  } = {},
): Promise<TestServer> {
  const shared = options.shareWith;
  const storage = shared?.storage ?? (await openStorage('memory://', { defaultDataDir: 'unused' }));
  const institutions = shared?.institutions ?? [
    ...['Alpha Savings', 'Beta Bank', 'Gamma Credit'].map(generateCredential),
    ...(options.moreInstitutions ?? []),
  ];
  if (!shared) await storage.upsertCredentials(institutions);
  const lines: string[] = [];
  const logger = createLogger({
    level: 'debug',
    destination: { write: (line: string) => void lines.push(line) },
  });
  const app = createApp({
    storage: options.wrapStorage ? options.wrapStorage(storage) : storage,
    logger,
    ...(options.signature ? { signature: options.signature } : {}),
    ...(options.docsPage ? { docsPage: options.docsPage } : {}),
    ...(options.rateLimitPerMinute ? { rateLimitPerMinute: options.rateLimitPerMinute } : {}),
    ...(options.rateLimitWindowSeconds
      ? { rateLimitWindowSeconds: options.rateLimitWindowSeconds }
      : {}),
    ...(options.refusalLimits ? { refusalLimits: options.refusalLimits } : {}),
    ...(options.trustProxy === undefined ? {} : { trustProxy: options.trustProxy }),
    ...(options.corsAllowOrigins ? { corsAllowOrigins: options.corsAllowOrigins } : {}),
    ...(options.metrics ? { metrics: options.metrics } : {}),
    ...(options.now ? { now: options.now } : {}),
    ...(options.messageSignatureMaxAgeSeconds
      ? { messageSignatureMaxAgeSeconds: options.messageSignatureMaxAgeSeconds }
      : {}),
    ...(options.publicOrigin ? { publicOrigin: options.publicOrigin } : {}),
    ...(options.sandboxDiagnosis ? { sandboxDiagnosis: true } : {}),
  });
  const server = createHttpServer(app, options.timeouts).listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  function prepare(method: string, path: string, sendOptions: SendOptions = {}): Captured {
    const signer = sendOptions.as === undefined ? institutions[0] : sendOptions.as;
    return prepareRequest(baseUrl, method, path, {
      ...sendOptions,
      as: signer ?? null,
      ...(sendOptions.signature || !options.signature ? {} : { signature: options.signature }),
    });
  }

  async function sendCaptured(captured: Captured, change: Partial<Captured> = {}): Promise<Answer> {
    const { method, path, headers, body } = { ...captured, ...change };
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: body as BodyInit }),
    });
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    return { status: response.status, headers: response.headers, text, body: parsed };
  }

  return {
    baseUrl,
    storage,
    institutions,
    logs: () => lines.map((line) => JSON.parse(line) as LogLine),
    prepare,
    sendCaptured,
    send: (method, path, sendOptions) => sendCaptured(prepare(method, path, sendOptions)),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (!shared) await storage.close();
    },
  };
}

/** The fields UserInput requires, as the spec lists them. */
const requiredFields = specSchemas.schema('UserInput').required as string[];

/**
 * A distinct valid create body each call with the fields UserInput requires only (the spec's MOMO
 * request example's values, test-support's builder: own card number and email), written the way
 * a client might: the card number without dashes in lower case.
 */
export function newUser(overrides: Record<string, unknown> = {}): UserInput {
  const full = distinctUserBody() as Record<string, unknown>;
  const body = Object.fromEntries(requiredFields.map((field) => [field, full[field]]));
  return {
    ...body,
    ghanaCardNumber: String(body.ghanaCardNumber).replaceAll('-', '').toLowerCase(),
    ...overrides,
  } as UserInput;
}

/**
 * A distinct full MOMO body with every optional field: the spec's `MomoAccountUser` example
 * (test-support's builder), with the card number as {@link newUser} writes it.
 */
export function fullMomoUser(overrides: Record<string, unknown> = {}): UserInput {
  const body = distinctUserBody() as Record<string, unknown>;
  return {
    ...body,
    ghanaCardNumber: String(body.ghanaCardNumber).replaceAll('-', '').toLowerCase(),
    ...overrides,
  } as UserInput;
}

/** The errors of a validation problem, for compact assertions. */
export function errorsOf(answer: Answer): { path: string; message: string }[] {
  return ((answer.body as { errors?: { path: string; message: string }[] }).errors ?? []).map(
    ({ path, message }) => ({ path, message }),
  );
}

/** Asserts-by-returning: the Ajv errors of `value` against the spec schema `name`, or []. */
export function schemaErrors(name: string, value: unknown): string[] {
  const validate = specSchemas.validator(name);
  return validate(value)
    ? []
    : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`);
}

/**
 * A GET with node:http, which (unlike fetch) neither decompresses nor follows redirects: the
 * status, headers and bytes as the server sent them.
 */
export function getAsSent(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    request(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
    })
      .on('error', reject)
      .end();
  });
}

/**
 * `storage` whose rate limiters cannot count: every `consume` fails as a database that cannot be
 * reached does (what PostgreSQL's store throws, classified), for the `503` of a limit.
 */
export function cannotCount(storage: Storage): Storage {
  return {
    ...storage,
    rateLimiter: () => ({
      consume: () =>
        Promise.reject(
          new StorageUnavailableError('PostgreSQL cannot be reached (ECONNREFUSED)', {
            cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), {
              code: 'ECONNREFUSED',
            }),
          }),
        ),
    }),
  };
}
