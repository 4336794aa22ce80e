import { isIP } from 'node:net';
import { defaultShutdownDrainMs, parseShutdownDrainMs } from '@institution-api/runtime/server-stop';
import type { SignatureAlgorithm, SignatureEncoding } from '@institution-api/signing';
import type { Level } from 'pino';
import {
  type EncryptionKey,
  encryptionKeyVariable,
  keyRequiredWithPostgres,
  parseEncryptionKey,
  previousEncryptionKeyVariable,
} from './credentials/encryption-key.js';
import { parseInstitutionCredentials } from './credentials/parse-institution-credentials.js';
import { defaultMessageSignatureMaxAgeSeconds } from './http/message-signature.js';
import { rateLimitWindowSeconds } from './http/rate-limit.js';
import { defaultRefusalLimits } from './http/refusal-limit.js';
import { defaultDataDir, isPostgresUrl, parseDatabaseUrl } from './storage/open-storage.js';
import type { InstitutionCredential } from './storage/types.js';

/**
 * Whether NODE_ENV means production: `production` or `prod` in any letter case (`Production`,
 * `PROD`), so that a value meant as production never leaves the sandbox's diagnosis, its forced
 * answers and its demo institution on. Any other value, or none, is the sandbox `npm start` gives.
 */
export function isProductionNodeEnv(value: string | undefined): boolean {
  return /^(?:production|prod)$/i.test(value?.trim() ?? '');
}

/** The server's whole configuration; it comes from the environment only (twelve-factor). */
export interface Config {
  /**
   * NODE_ENV is production ({@link isProductionNodeEnv}): no demo institution, no sandbox
   * diagnosis or forced answers unless asked for, no RATE_LIMIT_WINDOW_SECONDS.
   */
  production: boolean;
  /** PORT: 0–65535, default 8080 (0 picks a free port). */
  port: number;
  /**
   * HOST: the address to listen on, default 127.0.0.1. The server speaks plain HTTP and the
   * signature scheme allows replays (spec Assumptions, "Replay"), and a fresh `npm start` prints a
   * working demo key pair, so by default it is reachable from this machine only. Set HOST=0.0.0.0 (or `::`) in
   * a container or behind a TLS-terminating proxy.
   */
  host: string;
  /**
   * DATABASE_URL: unset → the embedded SQLite database in `data/`; a directory or file path → SQLite
   * there; `memory://` (tests); `postgres://…` → PostgreSQL. See storage/open-storage.ts.
   */
  databaseUrl: string | undefined;
  /** LOG_LEVEL: a pino level or `silent`, default `info`. */
  logLevel: Level | 'silent';
  /**
   * INSTITUTION_CREDENTIALS: a JSON array of { institution, publicKey, secretKey, messageSignature? },
   * upserted at start.
   */
  institutionCredentials: InstitutionCredential[] | undefined;
  /** SIGNATURE_ALGORITHM (sha256|sha512) and SIGNATURE_ENCODING (hex|base64), default sha256/hex. */
  signature: { algorithm: SignatureAlgorithm; encoding: SignatureEncoding };
  /**
   * MESSAGE_SIGNATURE_MAX_AGE_SECONDS: how far an RFC 9421 message signature's `created` may be
   * from the server's clock, either way, and so how long its nonce is kept: default 300, 1 to
   * 3,600 (spec: "Assumptions", message signatures). Every process on one database should agree.
   */
  messageSignatureMaxAgeSeconds: number;
  /**
   * SHUTDOWN_DRAIN_MS: how long requests in flight may take to finish after a stop signal,
   * default 10,000 (10 s), 0 to 600,000. The whole stop is bounded by this plus a few seconds.
   */
  shutdownDrainMs: number;
  /**
   * RATE_LIMIT_PER_MINUTE: authenticated requests each institution may make per minute before the
   * server answers 429 with Retry-After; unset or 0 (the default): no limit (spec Assumptions,
   * "Rate limits": integrators turn it on to test their retry handling).
   */
  rateLimitPerMinute: number | undefined;
  /**
   * RATE_LIMIT_WINDOW_SECONDS: the window RATE_LIMIT_PER_MINUTE counts in, 1 to 60, default 60;
   * for tests that must see a window end without waiting a minute, and refused with
   * NODE_ENV=production, where the limit is the minute its name says.
   */
  rateLimitWindowSeconds: number;
  /**
   * REFUSALS_PER_MINUTE_PER_KEY (default 300) and REFUSALS_PER_MINUTE_PER_ADDRESS (default 1,200):
   * the requests refused for their signature that one presented public key, and one client
   * address, may have per minute before the server answers 429 with Retry-After, and no
   * diagnosis (spec Assumptions, "Rate limits"; http/refusal-limit.ts). On by default, in
   * production as in the sandbox; 0 turns one off. A request whose signatures verify is never
   * counted.
   */
  refusalLimits: { perKey: number | undefined; perAddress: number | undefined };
  /**
   * TRUST_PROXY: the proxies in front of the server whose `X-Forwarded-For` says the client's
   * address, which the refusal limit counts by: a number of hops (1 to 10), or the proxies'
   * addresses and CIDR ranges, comma-separated (`loopback`, `linklocal` and `uniquelocal` name
   * Express's ranges). Unset (the default): the peer's address, `X-Forwarded-For` ignored.
   */
  trustProxy: number | string[] | undefined;
  /**
   * CORS_ALLOW_ORIGINS: the origins (`https://docs.example.com`), comma-separated, that a docs
   * page hosted elsewhere may call the API from; unset (the default): no CORS at all, since the
   * server serves its docs itself (spec Assumptions, "CORS"; see http/cors.ts).
   */
  corsAllowOrigins: string[];
  /**
   * PUBLIC_ORIGIN: the origin clients call the server at (`https://api.example.com`), as a proxy
   * in front of it publishes it; a message signature's `@scheme`, `@authority` and `@target-uri`
   * are then its own (spec Assumptions, message signatures; http/request-target.ts). Unset (the
   * default): an absolute-form target's, else the `Host` header's, when it is an authority alone.
   */
  publicOrigin: string | undefined;
  /**
   * METRICS_PORT: the port of a listener of its own, on HOST, serving Prometheus metrics at
   * `GET /metrics` (spec Assumptions, "Metrics"; see metrics/); unset (the default): no metrics.
   * 0–65535 (0: any free port, logged); never PORT, since the API port does not serve them.
   */
  metricsPort: number | undefined;
  /**
   * SANDBOX_PREFER (`1` or `0`): whether `Prefer: code=NNN` forces a documented answer (spec:
   * "Assumptions", "Sandbox: forcing an answer"; http/sandbox-prefer.ts). Unset: on, the sandbox
   * `npm start` gives, except with NODE_ENV=production (the production image), where it is off.
   */
  sandboxPrefer: boolean;
  /**
   * SANDBOX_DIAGNOSIS (`1` or `0`): whether a `401` for a known key whose signature does not verify
   * says why, in `diagnosis` (spec: "Assumptions", "Sandbox: why a signature failed";
   * http/signature-diagnosis.ts). Unset: on, except with NODE_ENV=production, where every refusal
   * is the one uniform `401`.
   */
  sandboxDiagnosis: boolean;
  /**
   * Whether a start on a database with no institution creates the demo institution and prints its
   * key pair (spec Assumptions, "Credentials"): under `npm start`, not with NODE_ENV=production
   * (the production image), which has no default credentials: its key pairs are issued with the
   * `credentials` command or provisioned by INSTITUTION_CREDENTIALS.
   */
  demoInstitution: boolean;
  /**
   * CREDENTIALS_ENCRYPTION_KEY (`current`, base64 of 32 bytes): the key the institutions' secret
   * keys are encrypted with in the database; required with PostgreSQL, and the same for every
   * process on one database. Unset on the embedded database: a key file beside it.
   * CREDENTIALS_ENCRYPTION_KEY_PREVIOUS: the key before it, which still opens the secrets sealed
   * with it until `credentials reencrypt` has moved them (see storage/open-storage.ts).
   */
  encryptionKeys: EncryptionKeys;
}

/** CREDENTIALS_ENCRYPTION_KEY and CREDENTIALS_ENCRYPTION_KEY_PREVIOUS, parsed. */
export interface EncryptionKeys {
  current?: EncryptionKey;
  previous?: EncryptionKey;
}

/** A configuration value is wrong; the message names the variable and what it accepts. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** The values of LOG_LEVEL. */
export const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** One of {@link logLevels}. */
export type LogLevel = (typeof logLevels)[number];
const algorithms = ['sha256', 'sha512'] as const;
const encodings = ['hex', 'base64'] as const;

/**
 * Reads and checks the configuration. Every invalid value is reported at once, as one
 * {@link ConfigError} listing each variable and the values it accepts, so the server fails at
 * start rather than on the first request. An empty variable counts as unset. Messages never
 * repeat the values of DATABASE_URL, INSTITUTION_CREDENTIALS or the encryption keys: they may hold
 * secrets.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const problems: string[] = [];
  const read = (name: string) => {
    const value = env[name]?.trim();
    return value === '' ? undefined : value;
  };
  const check = <T>(parse: () => T, fallback: T): T => {
    try {
      return parse();
    } catch (error) {
      problems.push((error as Error).message);
      return fallback;
    }
  };

  const production = isProductionNodeEnv(read('NODE_ENV'));
  const config: Config = {
    production,
    port: check(() => parsePort(read('PORT')), 8080),
    host: check(() => parseHost(read('HOST')), '127.0.0.1'),
    databaseUrl: check(() => {
      const value = read('DATABASE_URL');
      parseDatabaseUrl(value, defaultDataDir);
      return value;
    }, undefined),
    logLevel: check(() => oneOf('LOG_LEVEL', read('LOG_LEVEL'), logLevels, 'info'), 'info'),
    institutionCredentials: check(() => {
      const value = read('INSTITUTION_CREDENTIALS');
      return value === undefined ? undefined : parseInstitutionCredentials(value);
    }, undefined),
    signature: {
      algorithm: check(
        () => oneOf('SIGNATURE_ALGORITHM', read('SIGNATURE_ALGORITHM'), algorithms, 'sha256'),
        'sha256',
      ),
      encoding: check(
        () => oneOf('SIGNATURE_ENCODING', read('SIGNATURE_ENCODING'), encodings, 'hex'),
        'hex',
      ),
    },
    messageSignatureMaxAgeSeconds: check(
      () =>
        integerIn(
          'MESSAGE_SIGNATURE_MAX_AGE_SECONDS',
          read('MESSAGE_SIGNATURE_MAX_AGE_SECONDS'),
          1,
          3_600,
          defaultMessageSignatureMaxAgeSeconds,
        ),
      defaultMessageSignatureMaxAgeSeconds,
    ),
    shutdownDrainMs: check(
      () => parseShutdownDrainMs(read('SHUTDOWN_DRAIN_MS')),
      defaultShutdownDrainMs,
    ),
    rateLimitPerMinute: check(() => {
      const limit = integerIn('RATE_LIMIT_PER_MINUTE', read('RATE_LIMIT_PER_MINUTE'), 0, 1e6, 0);
      return limit === 0 ? undefined : limit;
    }, undefined),
    rateLimitWindowSeconds: check(() => {
      const value = read('RATE_LIMIT_WINDOW_SECONDS');
      if (value !== undefined && production) {
        throw new Error(
          'RATE_LIMIT_WINDOW_SECONDS is for tests: it cannot be set with NODE_ENV=production, where the window is a minute.',
        );
      }
      return integerIn('RATE_LIMIT_WINDOW_SECONDS', value, 1, 60, rateLimitWindowSeconds);
    }, rateLimitWindowSeconds),
    refusalLimits: {
      perKey: check(
        () =>
          limitOrOff(
            'REFUSALS_PER_MINUTE_PER_KEY',
            read('REFUSALS_PER_MINUTE_PER_KEY'),
            defaultRefusalLimits.perKey,
          ),
        defaultRefusalLimits.perKey,
      ),
      perAddress: check(
        () =>
          limitOrOff(
            'REFUSALS_PER_MINUTE_PER_ADDRESS',
            read('REFUSALS_PER_MINUTE_PER_ADDRESS'),
            defaultRefusalLimits.perAddress,
          ),
        defaultRefusalLimits.perAddress,
      ),
    },
    trustProxy: check(() => parseTrustProxy(read('TRUST_PROXY')), undefined),
    corsAllowOrigins: check(() => parseOrigins(read('CORS_ALLOW_ORIGINS')), []),
    publicOrigin: check(() => parsePublicOrigin(read('PUBLIC_ORIGIN')), undefined),
    metricsPort: check(() => parseMetricsPort(read('METRICS_PORT'), read('PORT')), undefined),
    sandboxPrefer: check(() => {
      const value = oneOf('SANDBOX_PREFER', read('SANDBOX_PREFER'), ['1', '0'], 'unset' as const);
      return value === 'unset' ? !production : value === '1';
    }, false),
    sandboxDiagnosis: check(() => {
      const value = oneOf(
        'SANDBOX_DIAGNOSIS',
        read('SANDBOX_DIAGNOSIS'),
        ['1', '0'],
        'unset' as const,
      );
      return value === 'unset' ? !production : value === '1';
    }, false),
    demoInstitution: !production,
    encryptionKeys: {},
  };
  try {
    config.encryptionKeys = loadEncryptionKeys(env, read('DATABASE_URL'));
  } catch (error) {
    problems.push(...(error as Error).message.split('\n'));
  }
  // One problem is one line (the operator reads it where the server refused to start); several
  // are listed one a line.
  if (problems.length === 1) throw new ConfigError(`Invalid configuration: ${problems[0]}`);
  if (problems.length > 1) {
    throw new ConfigError(`Invalid configuration:\n- ${problems.join('\n- ')}`);
  }
  return config;
}

/**
 * Reads CREDENTIALS_ENCRYPTION_KEY and CREDENTIALS_ENCRYPTION_KEY_PREVIOUS (the server's
 * configuration, and the credentials command's). Throws one line per problem, never repeating a
 * key: a value that is not base64 of 32 bytes, the same key twice, or no key with PostgreSQL.
 */
export function loadEncryptionKeys(
  env: NodeJS.ProcessEnv,
  databaseUrl: string | undefined,
): EncryptionKeys {
  const problems: string[] = [];
  const keys: EncryptionKeys = {};
  const read = (name: string) => {
    const value = env[name]?.trim();
    if (value === undefined || value === '') return undefined;
    try {
      return parseEncryptionKey(name, value);
    } catch (error) {
      problems.push((error as Error).message);
      return undefined;
    }
  };
  const current = read(encryptionKeyVariable);
  const previous = read(previousEncryptionKeyVariable);
  if (current) keys.current = current;
  if (previous) keys.previous = previous;
  if (current && previous && current.id === previous.id) {
    problems.push(`${previousEncryptionKeyVariable} is the same key as ${encryptionKeyVariable}.`);
  }
  const onPostgres = isPostgresUrl(databaseUrl);
  if (onPostgres && !current && !problems.some((p) => p.startsWith(encryptionKeyVariable))) {
    problems.push(keyRequiredWithPostgres);
  }
  if (problems.length > 0) throw new Error(problems.join('\n'));
  return keys;
}

/** A TCP port, 0–65535, from the variable `name`. */
function portIn(name: string, value: string): number {
  const port = /^\d{1,5}$/.test(value) ? Number(value) : Number.NaN;
  if (!(port >= 0 && port <= 65535)) {
    throw new Error(`${name} must be an integer from 0 to 65535, not "${value}".`);
  }
  return port;
}

function parsePort(value: string | undefined): number {
  return value === undefined ? 8080 : portIn('PORT', value);
}

function parseMetricsPort(value: string | undefined, apiPort: string | undefined) {
  if (value === undefined) return undefined;
  const port = portIn('METRICS_PORT', value);
  if (port !== 0 && port === Number(apiPort ?? 8080)) {
    throw new Error(
      `METRICS_PORT must differ from PORT (both ${port}): the metrics have a listener of their own.`,
    );
  }
  return port;
}

function integerIn(
  name: string,
  value: string | undefined,
  min: number,
  max: number,
  fallback: number,
): number {
  if (value === undefined) return fallback;
  const number = /^\d{1,7}$/.test(value) ? Number(value) : Number.NaN;
  if (!(number >= min && number <= max)) {
    throw new Error(`${name} must be an integer from ${min} to ${max}, not "${value}".`);
  }
  return number;
}

/** A limit per minute, 0 to 1,000,000: 0 is off (undefined), unset is `fallback`. */
function limitOrOff(name: string, value: string | undefined, fallback: number): number | undefined {
  const limit = integerIn(name, value, 0, 1e6, fallback);
  return limit === 0 ? undefined : limit;
}

/** Express's named ranges of addresses, which TRUST_PROXY may name. */
const namedRanges = ['loopback', 'linklocal', 'uniquelocal'];

function parseTrustProxy(value: string | undefined): number | string[] | undefined {
  if (value === undefined) return undefined;
  if (/^\d+$/.test(value)) return integerIn('TRUST_PROXY', value, 1, 10, 1);
  const entries = value.split(',').map((entry) => entry.trim());
  for (const entry of entries) {
    const [address, bits, more] = entry.split('/');
    const ip = isIP(address ?? '');
    const prefix =
      bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (ip === 4 ? 32 : 128));
    if (!namedRanges.includes(entry) && (ip === 0 || !prefix || more !== undefined)) {
      throw new Error(
        `TRUST_PROXY must be a number of proxies (1 to 10), or addresses and CIDR ranges, comma-separated (${namedRanges.join(', ')} name ranges), not "${value}".`,
      );
    }
  }
  return entries;
}

function parseHost(value: string | undefined): string {
  if (value === undefined) return '127.0.0.1';
  const hostname =
    /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*$/;
  if (isIP(value) === 0 && !hostname.test(value)) {
    throw new Error(
      `HOST must be an IP address or a host name (e.g. 127.0.0.1, 0.0.0.0, ::), not "${value}".`,
    );
  }
  return value;
}

function oneOf<const T extends string>(
  name: string,
  value: string | undefined,
  allowed: readonly T[],
  fallback: T,
): T {
  if (value === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(value)) {
    throw new Error(`${name} must be one of ${allowed.join(', ')}, not "${value}".`);
  }
  return value as T;
}

/**
 * A comma-separated list of origins, each exactly as a browser sends it in `Origin` (lower-case
 * host, no default port, no path), since that is what it is compared with.
 */
function parseOrigins(value: string | undefined): string[] {
  if (value === undefined) return [];
  return value
    .split(',')
    .map((entry) =>
      originIn(
        'CORS_ALLOW_ORIGINS',
        'must list http or https origins, comma-separated (e.g. https://docs.example.com)',
        entry.trim(),
      ),
    );
}

/** PUBLIC_ORIGIN: one origin, written as {@link originIn} requires. */
function parsePublicOrigin(value: string | undefined): string | undefined {
  return value === undefined
    ? undefined
    : originIn(
        'PUBLIC_ORIGIN',
        'must be an http or https origin (e.g. https://api.example.com)',
        value,
      );
}

/**
 * `origin` when it is an http or https origin written as WHATWG URL serializes it (lower-case
 * host, no default port, no path), else an error naming `name` and saying what it `must` be.
 */
function originIn(name: string, must: string, origin: string): string {
  const url = URL.canParse(origin) ? new URL(origin) : undefined;
  if (url?.protocol !== 'http:' && url?.protocol !== 'https:') {
    throw new Error(`${name} ${must}, not "${origin}".`);
  }
  if (url.origin !== origin) {
    throw new Error(
      `${name}: "${origin}" is not an origin as browsers send it; write "${url.origin}" (no path, no trailing slash, no default port).`,
    );
  }
  return origin;
}
