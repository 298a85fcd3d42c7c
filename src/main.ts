// Reads configuration, opens and migrates the database, seeds demo data on an
// empty database, starts the HTTP server and the webhook dispatcher, and shuts
// everything down in order on SIGTERM/SIGINT.
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError, loadConfig } from './config.ts';
import { createLogger } from './logger.ts';
import { DatabaseUrlError, openDatabase } from './db/client.ts';
import { applyMigrations } from './db/migrate.ts';
import { createApp } from './server.ts';
import { seedDemo, type DemoCredentials } from './domain/demo.ts';
import { startBackgroundWork } from './background.ts';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  const db = await openDatabase(config.databaseUrl, { shareEmbedded: true });
  logger.info('database opened', { kind: db.kind });

  if (config.migrateOnStart) {
    const applied = await applyMigrations(db);
    logger.info('migrations applied', { applied });
  }

  let demo: DemoCredentials | undefined;
  if (config.seedWhenEmpty && (await db.prisma.store.count()) === 0) {
    demo = await seedDemo(db.prisma);
    logger.info('demo data seeded', { storeId: demo.storeId });
    if (db.kind === 'pglite' && config.databaseUrl.startsWith('pglite:./')) {
      // Development convenience only: the embedded demo database's credentials, next to it.
      const file = path.resolve('data/demo-credentials.json');
      fs.writeFileSync(file, JSON.stringify(demo, null, 2) + '\n', { mode: 0o600 });
    }
  }

  const app = createApp({ db, config, logger });
  const background = startBackgroundWork({ db, config, logger });
  await new Promise<void>((resolve, reject) => {
    app.server.once('error', reject);
    app.server.listen(config.port, config.host, resolve);
  });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const base = `http://${config.host}:${port}`;
  const credentialsFile = path.resolve('data/demo-credentials.json');
  const credentials = demo ?? (fs.existsSync(credentialsFile) ? JSON.parse(fs.readFileSync(credentialsFile, 'utf8')) : undefined);
  process.stdout.write(
    [
      `Service listening on ${base}`,
      `  GraphQL v3      ${base}/v3/graphql  (schema: ${base}/v3/schema.graphql)`,
      `  REST v2.2       ${base}/v2.2         (OpenAPI: ${base}/v2.2/openapi.json)`,
      `  Compatibility   ${base}/api/v1/warehouse`,
      `  Health          ${base}/healthz  ${base}/readyz`,
      `  Dashboard       ${base}/admin         Shopper portal: ${base}/portal/<store id>`,
      credentials
        ? `  Demo store ${credentials.storeId}, secret: ${credentials.secret}` +
          (credentials.login ? `\n  Demo dashboard login: ${credentials.login.email} / ${credentials.login.password}  (${base}/admin/login?store=${credentials.storeId})` : '')
        : '  Create an API client: npm run -s cli -- api-client create --store <str_id> --name NAME --scopes a,b',
      '',
    ].join('\n'),
  );

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info('shutting down', { signal });
    await app.shutdown();
    await background.stop();
    await db.close();
    logger.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((error) => {
  const expected = error instanceof ConfigError || error instanceof DatabaseUrlError;
  process.stderr.write(`${expected ? 'configuration error' : 'start-up failed'}: ${expected ? error.message : error.stack}\n`);
  process.exit(1);
});
