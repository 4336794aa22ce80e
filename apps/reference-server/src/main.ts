import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { createApp } from './app.js';
import { type Config, ConfigError, loadConfig } from './config.js';
import { generateCredential } from './credentials/generate-credential.js';
import { startBanner } from './demo-banner.js';
import { createHttpServer } from './http/http-server.js';
import { createLogger, flushLogs } from './logger.js';
import { createMetrics } from './metrics/metrics.js';
import { createMetricsServer, metricsPath } from './metrics/metrics-server.js';
import { handleStopSignals, logFlushTimeoutMs, type StopControl } from './shutdown.js';
import { defaultDataDir, openStorage } from './storage/open-storage.js';
import { type OutageLog, outageLog } from './storage/outage-log.js';
import { DatabaseInUseError } from './storage/sqlite-server-lock.js';
import type { InstitutionCredential, Storage } from './storage/types.js';

/**
 * `npm start`: read the configuration from the environment, install the stop signals, open the
 * database (embedded SQLite in `data/` unless DATABASE_URL says otherwise), provision
 * INSTITUTION_CREDENTIALS, create a demo institution when there is none at all, and listen.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger({ level: config.logLevel });
  // A reader of stdout that has gone must not end the server (the banner is written there).
  process.stdout.on('error', () => {});
  // Before anything is opened, so that a signal during start-up closes it and exits (issue #10).
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
    });
    stop.storage(storage);
    if (!stop.stopping) await serve(config, storage, logger, stop, outage);
  } catch (error) {
    // Logged too, so that the error is written before the exit drops what is still buffered.
    logger.fatal(
      error instanceof DatabaseInUseError ? { reason: error.message } : { err: error },
      'failed to start',
    );
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
    await storage.upsertCredentials(config.institutionCredentials);
    logger.info(
      { institutions: config.institutionCredentials.map((c) => c.institution) },
      'provisioned INSTITUTION_CREDENTIALS',
    );
  }
  let demo: InstitutionCredential | undefined;
  if ((await storage.countInstitutions()) === 0) {
    demo = generateCredential('Demo institution');
    await storage.upsertCredentials([demo]);
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
      rateLimitPerMinute: config.rateLimitPerMinute,
      corsAllowOrigins: config.corsAllowOrigins,
      outageLog: outage,
      metrics,
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
  // Configuration errors, and a second server on an embedded database, are the operator's to fix:
  // their message, no stack. Others are faults.
  process.stderr.write(
    error instanceof ConfigError || error instanceof DatabaseInUseError
      ? `reference-server: ${error.message}\n`
      : `reference-server: failed to start: ${(error as Error).stack ?? String(error)}\n`,
  );
  process.exit(1);
});
