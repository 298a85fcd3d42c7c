// Reads configuration, checks the ports are free, opens and migrates the database,
// seeds demo data on an empty database, starts the HTTP server and the webhook
// dispatcher, and shuts everything down in order on SIGTERM/SIGINT within the
// shutdown deadline.
import net from 'node:net';
import { ConfigError, DEVELOPMENT_CURSOR_SECRET, loadConfig, type Config } from './config.ts';
import { createLogger } from './observability/logger.ts';
import { DatabaseUrlError, openDatabase } from './db/client.ts';
import { EmbeddedDatabaseBusyError } from './db/embedded.ts';
import { applyMigrations } from './db/migrate.ts';
import { createApp } from './process/server.ts';
import { seedDemo } from './domain/demo.ts';
import { startBackgroundWork } from './process/background.ts';
import { createMetrics } from './observability/metrics.ts';
import { keepDemoCredentials, keptDemoCredentials, type DemoCredentials } from './process/demoCredentials.ts';
import { startTracing } from './observability/telemetry.ts';

/** Requests in flight get this long to finish; the whole shutdown must end by SHUTDOWN_DEADLINE_MS. */
const REQUEST_GRACE_MS = 10_000;
const SHUTDOWN_DEADLINE_MS = 25_000;

class StartupError extends Error {}

/** Fails before any migration or seeding when another process holds the port. */
async function checkPortFree(port: number, host: string, variable: string): Promise<void> {
  if (port === 0) return;
  await new Promise<void>((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE') reject(new StartupError(`port ${port} on ${host} is already in use (another server running?); stop it or set ${variable} to a free port`));
      else if (error.code === 'EACCES') reject(new StartupError(`no permission to listen on port ${port}; set ${variable} to a port above 1023`));
      else reject(error);
    });
    probe.listen(port, host, () => probe.close(() => resolve()));
  });
}

function listen(server: import('node:http').Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    });
  });
}

function banner(config: Config, port: number, metricsPort: number | undefined, credentials: DemoCredentials | undefined): string {
  const base = `http://${config.host}:${port}`;
  const metrics = metricsPort === undefined ? `${base}/metrics` : `http://${config.host}:${metricsPort}/metrics`;
  return [
    `Service listening on ${base}`,
    `  GraphQL v3      ${base}/v3/graphql  (GraphiQL in a browser; schema: ${base}/v3/schema.graphql)`,
    `  v3 as REST      ${base}/v3/rest      (OpenAPI: ${base}/v3/rest/openapi.json)`,
    `  REST v2.2       ${base}/v2.2         (reference: ${base}/v2.2/docs, OpenAPI: ${base}/v2.2/openapi.json)`,
    `  Compatibility   ${base}/api/v1/warehouse`,
    `  Health          ${base}/healthz  ${base}/readyz   Metrics ${metrics}`,
    `  Dashboard       ${base}/admin         Shopper portal: ${base}/portal/<store id>`,
    credentials
      ? `  Demo store ${credentials.storeId}, secret: ${credentials.secret}` +
        (credentials.login ? `\n  Demo dashboard login: ${credentials.login.email} / ${credentials.login.password}  (${base}/admin/login?store=${credentials.storeId})` : '')
      : '  Create an API client: npm run -s cli -- api-client create --store <str_id> --name NAME --scopes a,b',
    '',
  ].join('\n');
}

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  await checkPortFree(config.port, config.host, 'PORT');
  if (config.metricsPort !== undefined) await checkPortFree(config.metricsPort, config.host, 'METRICS_PORT');

  const tracing = await startTracing(config.traces, logger);
  // The origin only: an endpoint URL may carry credentials.
  if (config.traces) logger.info('exporting traces', { to: new URL(config.traces.url).origin, serviceName: config.traces.serviceName });

  const replicas = config.databaseReplicaUrls.length > 0 ? { urls: config.databaseReplicaUrls, maxLagMs: config.replicaMaxLagMs, redisUrl: config.redisUrl, logger } : undefined;
  const db = await openDatabase(config.databaseUrl, { shareEmbedded: true, replicas, searchTimeLimitMs: config.searchTimeLimitMs });
  logger.info('database opened', { kind: db.kind, replicas: db.replicas?.status().length ?? 0, readPositions: db.replicas?.positionStore });
  if (db.kind === 'postgresql' && config.cursorSecret === DEVELOPMENT_CURSOR_SECRET) {
    logger.warn('CURSOR_SECRET is not set: pagination cursors are signed with the public development key, so clients can forge them; set CURSOR_SECRET to a long random value');
  }

  if (config.migrateOnStart) {
    const applied = await applyMigrations(db);
    logger.info('migrations applied', { applied });
  }

  let credentials: DemoCredentials | undefined;
  if (config.seedWhenEmpty && (await db.prisma.store.count()) === 0) {
    const seed = await seedDemo(db.prisma);
    if (seed.seeded) {
      credentials = { storeId: seed.storeId, secret: seed.secret, login: seed.login };
      keepDemoCredentials(config.databaseUrl, credentials);
      logger.info('demo data seeded', { storeId: seed.storeId });
    }
  }
  credentials ??= await keptDemoCredentials(db);

  const metrics = createMetrics(db);
  const app = createApp({ db, config, logger, metrics, tracing });
  logger.info('rate limits counted', { store: config.redisUrl ? 'redis' : 'memory (per instance)' });
  const background = startBackgroundWork({ db, config, logger, metrics });
  const port = await listen(app.server, config.port, config.host);
  const metricsPort = app.metricsServer && config.metricsPort !== undefined ? await listen(app.metricsServer, config.metricsPort, config.host) : undefined;
  process.stdout.write(banner(config, port, metricsPort, credentials));

  let stopping = false;
  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info('shutting down', { signal });
    const deadline = setTimeout(() => {
      logger.error('shutdown deadline passed; exiting with work unfinished', { deadlineMs: SHUTDOWN_DEADLINE_MS });
      process.exit(1);
    }, SHUTDOWN_DEADLINE_MS);
    deadline.unref();
    await app.shutdown(REQUEST_GRACE_MS);
    await background.stop();
    await db.close();
    // Last, so the spans of the requests that were finishing are exported too.
    await tracing?.shutdown();
    logger.info('stopped', { signal });
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((error) => {
  const expected = error instanceof ConfigError || error instanceof DatabaseUrlError || error instanceof StartupError || error instanceof EmbeddedDatabaseBusyError;
  process.stderr.write(`${expected ? 'cannot start' : 'start-up failed'}: ${expected ? error.message : error.stack}\n`);
  process.exit(1);
});
