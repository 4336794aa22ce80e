import { describe, expect, test } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';

describe('loadConfig', () => {
  test('defaults: port 8080 on 127.0.0.1, embedded database, info, sha256/hex', () => {
    expect(loadConfig({})).toEqual({
      production: false,
      port: 8080,
      host: '127.0.0.1',
      databaseUrl: undefined,
      logLevel: 'info',
      institutionCredentials: undefined,
      signature: { algorithm: 'sha256', encoding: 'hex' },
      messageSignatureMaxAgeSeconds: 300,
      shutdownDrainMs: 10_000,
      rateLimitPerMinute: undefined,
      rateLimitWindowSeconds: 60,
      refusalLimits: { perKey: 300, perAddress: 1_200 },
      trustProxy: undefined,
      corsAllowOrigins: [],
      publicOrigin: undefined,
      metricsPort: undefined,
      sandboxPrefer: true,
      sandboxDiagnosis: true,
      demoInstitution: true,
      encryptionKeys: {},
    });
  });

  test.each([
    ['production', true],
    ['Production', true],
    ['PRODUCTION', true],
    ['prod', true],
    ['PROD', true],
    [' Prod ', true],
    ['development', false],
    ['test', false],
    ['staging', false],
    ['productions', false],
    ['', false],
  ])(
    'NODE_ENV=%j is production: %s (no demo, no diagnosis, no forced answers, no test window)',
    (nodeEnv, production) => {
      const config = loadConfig({ NODE_ENV: nodeEnv });
      expect(config).toMatchObject({
        production,
        demoInstitution: !production,
        sandboxDiagnosis: !production,
        sandboxPrefer: !production,
      });
      const window = () => loadConfig({ NODE_ENV: nodeEnv, RATE_LIMIT_WINDOW_SECONDS: '5' });
      if (production) expect(window).toThrow('RATE_LIMIT_WINDOW_SECONDS is for tests');
      else expect(window().rateLimitWindowSeconds).toBe(5);
    },
  );

  test('the demo institution: under npm start, never with NODE_ENV=production', () => {
    expect(loadConfig({ NODE_ENV: 'development' }).demoInstitution).toBe(true);
    expect(loadConfig({ NODE_ENV: 'production' }).demoInstitution).toBe(false);
  });

  test('SANDBOX_PREFER: on unless NODE_ENV=production, where SANDBOX_PREFER=1 turns it on', () => {
    expect(loadConfig({ NODE_ENV: 'development' }).sandboxPrefer).toBe(true);
    expect(loadConfig({ NODE_ENV: 'production' }).sandboxPrefer).toBe(false);
    expect(loadConfig({ NODE_ENV: 'production', SANDBOX_PREFER: '1' }).sandboxPrefer).toBe(true);
    expect(loadConfig({ SANDBOX_PREFER: '0' }).sandboxPrefer).toBe(false);
    expect(() => loadConfig({ SANDBOX_PREFER: 'yes' })).toThrow(
      'Invalid configuration: SANDBOX_PREFER must be one of 1, 0, not "yes".',
    );
  });

  test('SANDBOX_DIAGNOSIS: on unless NODE_ENV=production, where SANDBOX_DIAGNOSIS=1 turns it on', () => {
    expect(loadConfig({ NODE_ENV: 'development' }).sandboxDiagnosis).toBe(true);
    expect(loadConfig({ NODE_ENV: 'production' }).sandboxDiagnosis).toBe(false);
    expect(loadConfig({ NODE_ENV: 'production', SANDBOX_DIAGNOSIS: '1' }).sandboxDiagnosis).toBe(
      true,
    );
    expect(loadConfig({ SANDBOX_DIAGNOSIS: '0' }).sandboxDiagnosis).toBe(false);
    expect(() => loadConfig({ SANDBOX_DIAGNOSIS: 'on' })).toThrow(
      'Invalid configuration: SANDBOX_DIAGNOSIS must be one of 1, 0, not "on".',
    );
  });

  test('reads every variable; empty counts as unset', () => {
    const key = Buffer.alloc(32, 1);
    const previous = Buffer.alloc(32, 2);
    const credentials = [
      { institution: 'Alpha', publicKey: 'pk_alpha', secretKey: 'sk_0123456789abcdef' },
    ];
    expect(
      loadConfig({
        PORT: '0',
        HOST: '0.0.0.0',
        DATABASE_URL: 'postgres://db.example/users',
        LOG_LEVEL: 'debug',
        INSTITUTION_CREDENTIALS: JSON.stringify(credentials),
        SIGNATURE_ALGORITHM: 'sha512',
        SIGNATURE_ENCODING: 'base64',
        MESSAGE_SIGNATURE_MAX_AGE_SECONDS: '120',
        SHUTDOWN_DRAIN_MS: '2500',
        RATE_LIMIT_PER_MINUTE: '120',
        REFUSALS_PER_MINUTE_PER_KEY: '30',
        REFUSALS_PER_MINUTE_PER_ADDRESS: '0',
        TRUST_PROXY: 'loopback, 10.0.0.0/8, fd00::1',
        CORS_ALLOW_ORIGINS: 'https://docs.example.com, http://localhost:8081',
        PUBLIC_ORIGIN: 'https://api.example.com',
        METRICS_PORT: '9464',
        CREDENTIALS_ENCRYPTION_KEY: key.toString('base64'),
        CREDENTIALS_ENCRYPTION_KEY_PREVIOUS: previous.toString('base64'),
      }),
    ).toEqual({
      production: false,
      port: 0,
      host: '0.0.0.0',
      databaseUrl: 'postgres://db.example/users',
      logLevel: 'debug',
      institutionCredentials: credentials,
      signature: { algorithm: 'sha512', encoding: 'base64' },
      messageSignatureMaxAgeSeconds: 120,
      shutdownDrainMs: 2500,
      rateLimitPerMinute: 120,
      rateLimitWindowSeconds: 60,
      refusalLimits: { perKey: 30, perAddress: undefined },
      trustProxy: ['loopback', '10.0.0.0/8', 'fd00::1'],
      corsAllowOrigins: ['https://docs.example.com', 'http://localhost:8081'],
      publicOrigin: 'https://api.example.com',
      metricsPort: 9464,
      sandboxPrefer: true,
      sandboxDiagnosis: true,
      demoInstitution: true,
      encryptionKeys: {
        current: {
          key,
          id: expect.stringMatching(/^[0-9a-f]{16}$/),
          source: 'CREDENTIALS_ENCRYPTION_KEY',
        },
        previous: {
          key: previous,
          id: expect.stringMatching(/^[0-9a-f]{16}$/),
          source: 'CREDENTIALS_ENCRYPTION_KEY_PREVIOUS',
        },
      },
    });
    expect(loadConfig({ PORT: '0', METRICS_PORT: '0' }).metricsPort).toBe(0);
    expect(loadConfig({ RATE_LIMIT_PER_MINUTE: '0' }).rateLimitPerMinute).toBeUndefined();
    expect(loadConfig({ RATE_LIMIT_WINDOW_SECONDS: '2' }).rateLimitWindowSeconds).toBe(2);
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ NODE_ENV: 'production' }).refusalLimits).toEqual({
      perKey: 300,
      perAddress: 1_200,
    });
    expect(loadConfig({ PORT: '', LOG_LEVEL: ' ' }).port).toBe(8080);
    expect(loadConfig({ HOST: '::' }).host).toBe('::');
    expect(loadConfig({ HOST: 'api.internal' }).host).toBe('api.internal');
  });

  test.each([
    [{ PORT: '80a' }, 'PORT must be an integer from 0 to 65535, not "80a".'],
    [{ PORT: '65536' }, 'PORT must be an integer from 0 to 65535'],
    [{ PORT: '-1' }, 'PORT must be an integer'],
    [{ HOST: 'two words' }, 'HOST must be an IP address or a host name'],
    [{ SHUTDOWN_DRAIN_MS: '10s' }, 'SHUTDOWN_DRAIN_MS must be an integer from 0 to 600000'],
    [{ SHUTDOWN_DRAIN_MS: '600001' }, 'SHUTDOWN_DRAIN_MS must be an integer from 0 to 600000'],
    [{ RATE_LIMIT_PER_MINUTE: '-5' }, 'RATE_LIMIT_PER_MINUTE must be an integer from 0 to 1000000'],
    [
      { REFUSALS_PER_MINUTE_PER_KEY: 'many' },
      'REFUSALS_PER_MINUTE_PER_KEY must be an integer from 0 to 1000000, not "many".',
    ],
    [
      { REFUSALS_PER_MINUTE_PER_ADDRESS: '2000000' },
      'REFUSALS_PER_MINUTE_PER_ADDRESS must be an integer from 0 to 1000000',
    ],
    [{ TRUST_PROXY: 'true' }, 'TRUST_PROXY must be a number of proxies (1 to 10), or addresses'],
    [{ TRUST_PROXY: '10.0.0.0/33' }, 'TRUST_PROXY must be a number of proxies'],
    [{ TRUST_PROXY: '11' }, 'TRUST_PROXY must be an integer from 1 to 10'],
    [
      { RATE_LIMIT_WINDOW_SECONDS: '0' },
      'RATE_LIMIT_WINDOW_SECONDS must be an integer from 1 to 60',
    ],
    [
      { RATE_LIMIT_WINDOW_SECONDS: '5', NODE_ENV: 'production' },
      'RATE_LIMIT_WINDOW_SECONDS is for tests: it cannot be set with NODE_ENV=production',
    ],
    [{ METRICS_PORT: 'on' }, 'METRICS_PORT must be an integer from 0 to 65535, not "on".'],
    [{ METRICS_PORT: '65536' }, 'METRICS_PORT must be an integer from 0 to 65535'],
    [{ PORT: '9000', METRICS_PORT: '9000' }, 'METRICS_PORT must differ from PORT (both 9000)'],
    [{ METRICS_PORT: '8080' }, 'METRICS_PORT must differ from PORT (both 8080)'],
    [{ CORS_ALLOW_ORIGINS: '*' }, 'CORS_ALLOW_ORIGINS must list http or https origins'],
    [{ CORS_ALLOW_ORIGINS: 'null' }, 'CORS_ALLOW_ORIGINS must list http or https origins'],
    [{ CORS_ALLOW_ORIGINS: 'ftp://docs.example.com' }, 'must list http or https origins'],
    [
      { CORS_ALLOW_ORIGINS: 'https://docs.example.com/' },
      'write "https://docs.example.com" (no path, no trailing slash, no default port)',
    ],
    [{ CORS_ALLOW_ORIGINS: 'https://Docs.example.com:443' }, 'write "https://docs.example.com"'],
    [
      { PUBLIC_ORIGIN: 'api.example.com' },
      'PUBLIC_ORIGIN must be an http or https origin (e.g. https://api.example.com), not "api.example.com".',
    ],
    [
      { PUBLIC_ORIGIN: 'https://api.example.com/sandbox' },
      'PUBLIC_ORIGIN: "https://api.example.com/sandbox" is not an origin as browsers send it; write "https://api.example.com"',
    ],
    [{ PUBLIC_ORIGIN: 'HTTPS://API.example.com:443' }, 'write "https://api.example.com"'],
    [
      { LOG_LEVEL: 'verbose' },
      'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent',
    ],
    [
      { SIGNATURE_ALGORITHM: 'md5' },
      'SIGNATURE_ALGORITHM must be one of sha256, sha512, not "md5".',
    ],
    [{ SIGNATURE_ENCODING: 'HEX' }, 'SIGNATURE_ENCODING must be one of hex, base64, not "HEX".'],
    [{ DATABASE_URL: 'mysql://u:hunter2@db/x' }, 'unsupported scheme "mysql://"'],
    [
      { DATABASE_URL: 'postgres://db/app' },
      'CREDENTIALS_ENCRYPTION_KEY is required with PostgreSQL (every server process and the credentials command on one database need the same key): make one with `openssl rand -base64 32`.',
    ],
    [
      { CREDENTIALS_ENCRYPTION_KEY: 'hunter2' },
      'CREDENTIALS_ENCRYPTION_KEY must be 32 bytes in base64 (44 characters); make one with `openssl rand -base64 32`.',
    ],
    [
      { CREDENTIALS_ENCRYPTION_KEY_PREVIOUS: 'hunter2' },
      'CREDENTIALS_ENCRYPTION_KEY_PREVIOUS must be 32 bytes in base64',
    ],
    [
      {
        CREDENTIALS_ENCRYPTION_KEY: Buffer.alloc(32, 3).toString('base64'),
        CREDENTIALS_ENCRYPTION_KEY_PREVIOUS: Buffer.alloc(32, 3).toString('base64'),
      },
      'CREDENTIALS_ENCRYPTION_KEY_PREVIOUS is the same key as CREDENTIALS_ENCRYPTION_KEY.',
    ],
    [
      { INSTITUTION_CREDENTIALS: '{"not":"an array"}' },
      'INSTITUTION_CREDENTIALS must be a JSON array',
    ],
  ])('%j is a clear start-up error', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  test('says one problem in one line', () => {
    expect(() => loadConfig({ PORT: 'x' })).toThrow(
      /^Invalid configuration: PORT must be an integer from 0 to 65535, not "x"\.$/,
    );
  });

  test('lists every problem at once, and never repeats a secret', () => {
    const secret = 'sk_short';
    let error: unknown;
    try {
      loadConfig({
        PORT: 'x',
        SIGNATURE_ENCODING: 'hexx',
        DATABASE_URL: 'mysql://u:hunter2@db/x',
        INSTITUTION_CREDENTIALS: JSON.stringify([
          { institution: 'A', publicKey: 'pk', secretKey: secret },
        ]),
        CREDENTIALS_ENCRYPTION_KEY: `${secret}-not-a-key`,
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).toMatch(
      /PORT[\s\S]*DATABASE_URL[\s\S]*INSTITUTION_CREDENTIALS[\s\S]*SIGNATURE_ENCODING[\s\S]*CREDENTIALS_ENCRYPTION_KEY/,
    );
    expect(message).not.toContain(secret);
    expect(message).not.toContain('hunter2');
  });
});
