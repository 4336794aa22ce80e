import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { createApp } from './app.js';
import { type Config, ConfigError, loadConfig } from './config.js';
import { logCredentialEvents } from './credentials/credential-events.js';
import { EncryptionKeyError } from './credentials/encryption-key.js';
import { issueCredential } from './credentials/issue-credential.js';
import { refuseNewLongPublicKeys } from './credentials/long-public-keys.js';
import { noInstitutionInProduction, startBanner } from './demo-banner.js';
import { createHttpServer } from './http/http-server.js';
import { createLogger, flushLogs } from './logger.js';
import { createMetrics } from './metrics/metrics.js';
import { createMetricsServer, metricsPath } from './metrics/metrics-server.js';
import { handleStopSignals, logFlushTimeoutMs, type StopControl } from './shutdown.js';
import { type OutageLog, outageLog } from './storage/health/outage-log.js';
import { defaultDataDir, openStorage } from './storage/open-storage.js';
import { DatabaseInUseError } from './storage/sqlite-server-lock.js';
import type { InstitutionCredential, Storage } from './storage/types.js';

/**
 * `npm start`: read the configuration from the environment, install the stop signals, open the
 * database (embedded SQLite in `data/` unless DATABASE_URL says otherwise; its secrets encrypted
 * with CREDENTIALS_ENCRYPTION_KEY or the key file), provision INSTITUTION_CREDENTIALS (never
 * reviving a revoked key), create a demo institution when there is none at all (except with
 * NODE_ENV=production: there, log how to issue a key pair), and listen.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  // NODE_ENV=Production or prod is production here (config.ts): the libraries that read it
  // themselves (Express) are told so in the one spelling they know.
  if (config.production) process.env.NODE_ENV = 'production';
  const logger = createLogger({ level: config.logLevel });
  // A reader of stdout that has gone must not end the server (the banner is written there).
  process.stdout.on('error', () => {});
  // Before anything is opened, so that a signal during start-up closes it and exits
  // (docs/operating.md, "Shutdown").
  const stop = handleStopSignals({ logger, drainTimeoutMs: config.shutdownDrainMs });
  try {
    logger.debug('opening the storage');
    const outage = outageLog(logger);
    const storage = await openStorage(config.databaseUrl, {
      defaultDataDir,
      // One line each, no stack: a restart of PostgreSQL ends every idle connection at once.
      onIdleError: (error) =>
        logger.warn(
          { code: (error as { code?: unknown }).code, cause: error.message },
          'idle database connection failed',
        ),
      health: outage,
      asTheOneServer: true,
      encryptionKeys: config.encryptionKeys,
      onCredentialEvents: (events) => logCredentialEvents(logger, events),
    });
    stop.storage(storage);
    if (!stop.stopping) await serve(config, storage, logger, stop, outage);
  } catch (error) {
    // Logged too, so that the error is written before the exit drops what is still buffered. What
    // the operator must fix (a second server on an embedded database, a key that does not fit):
    // its one line, no stack.
    if (error instanceof DatabaseInUseError || error instanceof EncryptionKeyError)
      logger.fatal({ problem: error.message }, 'failed to start');
    else logger.fatal({ err: error }, 'failed to start');
    await flushLogs(logger, logFlushTimeoutMs);
    throw error;
  }
}

async function serve(
  config: Config,
  storage: Storage,
  logger: Logger,
  stop: StopControl,
  outage: OutageLog,
): Promise<void> {
  if (config.institutionCredentials) {
    await refuseNewLongPublicKeys(storage, config.institutionCredentials);
    // A revoked or expired pair is skipped (stays refused), with a warning naming it.
    logCredentialEvents(logger, await storage.upsertCredentials(config.institutionCredentials));
    logger.info(
      { institutions: config.institutionCredentials.map((c) => c.institution) },
      'provisioned INSTITUTION_CREDENTIALS',
    );
  }
  let demo: InstitutionCredential | undefined;
  const noInstitution = (await storage.countInstitutions()) === 0;
  // Production has no default credentials: the operator issues them (spec Assumptions,
  // "Credentials").
  if (noInstitution && !config.demoInstitution) logger.warn(noInstitutionInProduction);
  else if (noInstitution) {
    const issued = await issueCredential(storage, 'Demo institution', {
      actor: 'start',
      reason: 'demo institution: no institution was configured',
    });
    demo = issued.credential;
    logCredentialEvents(logger, issued.events);
    logger.info({ institution: demo.institution }, 'created the demo institution');
  }
  if (stop.stopping) return;

  const metrics =
    config.metricsPort === undefined
      ? undefined
      : createMetrics({ databaseUp: () => outage.databaseUp() });
  const server = createHttpServer(
    createApp({
      storage,
      logger,
      signature: config.signature,
      messageSignatureMaxAgeSeconds: config.messageSignatureMaxAgeSeconds,
      rateLimitPerMinute: config.rateLimitPerMinute,
      rateLimitWindowSeconds: config.rateLimitWindowSeconds,
      refusalLimits: config.refusalLimits,
      ...(config.trustProxy === undefined ? {} : { trustProxy: config.trustProxy }),
      corsAllowOrigins: config.corsAllowOrigins,
      longestPublicKey: await storage.longestPublicKey(),
      sandboxPrefer: config.sandboxPrefer,
      sandboxDiagnosis: config.sandboxDiagnosis,
      outageLog: outage,
      metrics,
      ...(config.publicOrigin === undefined ? {} : { publicOrigin: config.publicOrigin }),
    }),
  );
  stop.server(server);
  const port = await listen(server, config.port, config.host);
  logger.info({ host: config.host, port }, 'listening');
  const host = ['127.0.0.1', '0.0.0.0', '::', '::1'].includes(config.host)
    ? 'localhost'
    : config.host;
  let metricsUrl: string | undefined;
  if (metrics && config.metricsPort !== undefined && !stop.stopping) {
    const metricsServer = createMetricsServer(metrics.registry);
    stop.metricsServer(metricsServer);
    const metricsPort = await listen(metricsServer, config.metricsPort, config.host);
    logger.info({ host: config.host, port: metricsPort }, 'metrics listening');
    metricsUrl = `http://${host}:${metricsPort}${metricsPath}`;
  }
  process.stdout.write(
    startBanner({ baseUrl: `http://${host}:${port}`, metricsUrl, config, demo }),
  );
}

/** Listens on `port` of `host`; resolves with the port bound (the one picked, for 0). */
async function listen(server: Server, port: number, host: string): Promise<number> {
  server.listen(port, host);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  return (server.address() as AddressInfo).port;
}

main().catch((error: unknown) => {
  // Configuration errors, a second server on an embedded database and an encryption key that does
  // not fit are the operator's to fix: their message, no stack. Others are faults.
  process.stderr.write(
    error instanceof ConfigError ||
      error instanceof DatabaseInUseError ||
      error instanceof EncryptionKeyError
      ? `reference-server: ${error.message}\n`
      : `reference-server: failed to start: ${(error as Error).stack ?? String(error)}\n`,
  );
  process.exit(1);
});
