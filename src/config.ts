// Environment -> typed configuration, validated once at start-up.
import type { LogLevel } from './observability/logger.ts';
import type { TracesConfig } from './observability/telemetry.ts';
import { SEARCH_TIME_LIMIT_MS } from './db/reads/reader.ts';
import { readTrustedDocuments, type TrustedDocuments } from './formats/trustedDocuments.ts';

export interface GraphQLLimits {
  maxAliases: number;
  maxDepth: number;
  maxTokens: number;
  maxDirectives: number;
  /** Objects one request may ask for: a connection counts its page size times what each node selects. */
  maxCost: number;
}

export const DEFAULT_GRAPHQL_LIMITS: GraphQLLimits = { maxAliases: 30, maxDepth: 15, maxTokens: 5_000, maxDirectives: 50, maxCost: 50_000 };

export interface Config {
  port: number;
  /** Serve /metrics on this port instead of PORT (keeps it off a public listener). */
  metricsPort?: number;
  host: string;
  databaseUrl: string;
  /** PostgreSQL streaming replicas that compiled reads go to (db/replicas.ts); empty reads everything from DATABASE_URL. */
  databaseReplicaUrls: string[];
  /** A replica whose replay falls further behind the primary than this is left out of the reads until it catches up. */
  replicaMaxLagMs: number;
  migrateOnStart: boolean;
  seedWhenEmpty: boolean;
  logLevel: LogLevel;
  webhooksAllowLoopback: boolean;
  webhookDispatcher: boolean;
  /** How long an instance's claim on a bulk action on returns holds without progress; one that stopped is resumed by another after it. */
  bulkActionLeaseMs: number;
  /** How long a statement that searches text may run on PostgreSQL (db/reads/reader.ts); an export's pages after its first have no limit. */
  searchTimeLimitMs: number;
  /** Key that signs REST and GraphQL pagination cursors. */
  cursorSecret: string;
  rateLimits: { rest: number; compat: number };
  /** Redis that holds the rate-limit counts shared by every instance and relays live announcements (on PostgreSQL); unset keeps counts in memory and has every instance listen to the database. */
  redisUrl?: string;
  /** Dashboard sign-in attempts per 5 minutes (per store + e-mail), and shopper portal lookups per minute (per address). */
  webLimits: { loginAttempts: number; portalLookups: number };
  /** What one /v3/graphql request may ask for. */
  graphqlLimits: GraphQLLimits;
  /** GRAPHQL_TRUSTED_DOCUMENTS: when set, /v3/graphql accepts only the operations of this manifest, by id (trustedDocuments.ts). */
  trustedDocuments?: TrustedDocuments;
  /** Open subscriptions one API client may hold on one instance, and events one may have waiting, while its client takes none, before it is disconnected. */
  subscriptions: { perClient: number; maxPendingEvents: number };
  /** Delivered and discarded webhook deliveries (and their events) older than this are deleted. */
  webhookRetentionDays: number;
  /** Audit entries older than this are deleted. */
  auditRetentionDays: number;
  /** Where request traces are sent; unset turns tracing off. */
  traces?: TracesConfig;
}

export const DEFAULT_DATABASE_URL = 'pglite:./data/pglite';
/** Fixed so cursors stay valid across development restarts; anyone who knows it can forge cursors. */
export const DEVELOPMENT_CURSOR_SECRET = 'development-cursor-secret';

export class ConfigError extends Error {}

function bool(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

function int(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

function redisUrl(env: NodeJS.ProcessEnv): string | undefined {
  const raw = env.REDIS_URL;
  if (raw === undefined || raw === '') return undefined;
  if (!/^rediss?:\/\/[^\s]+$/.test(raw)) throw new ConfigError(`REDIS_URL must be a redis:// or rediss:// URL, got "${raw}"`);
  return raw;
}

/**
 * OpenTelemetry's own variables: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is the URL itself,
 * OTEL_EXPORTER_OTLP_ENDPOINT the base that /v1/traces is appended to. Headers, timeout,
 * compression and certificates are read by the exporter from its own variables.
 */
function traces(env: NodeJS.ProcessEnv): TracesConfig | undefined {
  if (bool(env, 'OTEL_SDK_DISABLED', false)) return undefined;
  const name = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ? 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' : env.OTEL_EXPORTER_OTLP_ENDPOINT ? 'OTEL_EXPORTER_OTLP_ENDPOINT' : undefined;
  if (!name) return undefined;
  const raw = env[name]!;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be an http:// or https:// URL, got "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(`${name} must be an http:// or https:// URL, got "${raw}"`);
  if (name === 'OTEL_EXPORTER_OTLP_ENDPOINT') url = new URL(url.pathname.endsWith('/') ? 'v1/traces' : `${url.pathname}/v1/traces`, url);
  return { url: url.toString(), serviceName: env.OTEL_SERVICE_NAME || 'commerce-backoffice' };
}

/**
 * DATABASE_REPLICA_URLS: comma-separated postgresql:// URLs (a standby each, or a balancer's
 * read port in front of several). Replicas stream from a PostgreSQL primary, so they need one.
 */
function replicaUrls(env: NodeJS.ProcessEnv, databaseUrl: string): string[] {
  const raw = env.DATABASE_REPLICA_URLS;
  if (raw === undefined || raw.trim() === '') return [];
  const urls = raw.split(',').map((url) => url.trim()).filter((url) => url !== '');
  for (const url of urls) {
    let valid = false;
    try {
      valid = /^postgres(ql)?:$/.test(new URL(url).protocol);
    } catch {
      // reported below
    }
    if (!valid) throw new ConfigError(`DATABASE_REPLICA_URLS must be comma-separated postgresql:// URLs, got "${url}"`);
  }
  if (!/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError(`DATABASE_REPLICA_URLS needs a PostgreSQL primary (DATABASE_URL=postgresql://...): the embedded PGlite database ("${databaseUrl}") has no replicas; unset DATABASE_REPLICA_URLS`);
  }
  return urls;
}

function trustedDocuments(env: NodeJS.ProcessEnv): TrustedDocuments | undefined {
  const path = env.GRAPHQL_TRUSTED_DOCUMENTS;
  if (path === undefined || path === '') return undefined;
  try {
    return readTrustedDocuments(path);
  } catch (error) {
    throw new ConfigError(`GRAPHQL_TRUSTED_DOCUMENTS: the manifest ${path} ${(error as Error).message}`);
  }
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const logLevel = (env.LOG_LEVEL ?? 'info') as LogLevel;
  if (!['debug', 'info', 'warn', 'error', 'silent'].includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of debug, info, warn, error, silent, got "${env.LOG_LEVEL}"`);
  }
  return {
    port: int(env, 'PORT', 4000, 0, 65535),
    metricsPort: env.METRICS_PORT ? int(env, 'METRICS_PORT', 0, 0, 65535) : undefined,
    host: env.HOST ?? '127.0.0.1',
    databaseUrl: env.DATABASE_URL || DEFAULT_DATABASE_URL,
    databaseReplicaUrls: replicaUrls(env, env.DATABASE_URL || DEFAULT_DATABASE_URL),
    replicaMaxLagMs: int(env, 'DATABASE_REPLICA_MAX_LAG_MS', 5_000, 100, 3_600_000),
    migrateOnStart: bool(env, 'MIGRATE_ON_START', true),
    seedWhenEmpty: bool(env, 'SEED_WHEN_EMPTY', true),
    logLevel,
    webhooksAllowLoopback: bool(env, 'WEBHOOKS_ALLOW_LOOPBACK', false),
    webhookDispatcher: bool(env, 'WEBHOOK_DISPATCHER', true),
    bulkActionLeaseMs: int(env, 'RETURN_BULK_ACTION_LEASE_MS', 30_000, 1_000, 3_600_000),
    searchTimeLimitMs: int(env, 'SEARCH_TIME_LIMIT_MS', SEARCH_TIME_LIMIT_MS, 1, 600_000),
    cursorSecret: env.CURSOR_SECRET || DEVELOPMENT_CURSOR_SECRET,
    rateLimits: {
      rest: int(env, 'RATE_LIMIT_REST_PER_MINUTE', 1200, 1, 1_000_000),
      compat: int(env, 'RATE_LIMIT_COMPAT_PER_MINUTE', 300, 1, 1_000_000),
    },
    redisUrl: redisUrl(env),
    webLimits: {
      loginAttempts: int(env, 'LOGIN_ATTEMPTS_PER_5_MINUTES', 10, 1, 1_000_000),
      portalLookups: int(env, 'PORTAL_LOOKUPS_PER_MINUTE', 20, 1, 1_000_000),
    },
    graphqlLimits: {
      maxAliases: int(env, 'GRAPHQL_MAX_ALIASES', DEFAULT_GRAPHQL_LIMITS.maxAliases, 1, 10_000),
      maxDepth: int(env, 'GRAPHQL_MAX_DEPTH', DEFAULT_GRAPHQL_LIMITS.maxDepth, 1, 1_000),
      maxTokens: int(env, 'GRAPHQL_MAX_TOKENS', DEFAULT_GRAPHQL_LIMITS.maxTokens, 10, 1_000_000),
      maxDirectives: int(env, 'GRAPHQL_MAX_DIRECTIVES', DEFAULT_GRAPHQL_LIMITS.maxDirectives, 1, 10_000),
      maxCost: int(env, 'GRAPHQL_MAX_COST', DEFAULT_GRAPHQL_LIMITS.maxCost, 1, 100_000_000),
    },
    trustedDocuments: trustedDocuments(env),
    subscriptions: {
      perClient: int(env, 'SUBSCRIPTIONS_PER_CLIENT', 20, 1, 100_000),
      maxPendingEvents: int(env, 'SUBSCRIPTION_MAX_PENDING_EVENTS', 256, 1, 100_000),
    },
    webhookRetentionDays: int(env, 'WEBHOOK_RETENTION_DAYS', 30, 1, 3650),
    auditRetentionDays: int(env, 'AUDIT_RETENTION_DAYS', 365, 1, 36500),
    traces: traces(env),
  };
}
