// Log lines through pino: one JSON object per line on stderr, so failures can be grepped
// and shipped as-is. In development on a terminal the lines go through pino-pretty (a
// devDependency, so never in production installs). Secrets are redacted wherever a
// field of that name turns up; bodies are never passed to the logger. Nor is a shopper's personal
// data (their e-mail, name, phone number or address): a field named like one is redacted, and an
// error is logged with what may quote the values it was given masked (loggedError).
import { createRequire } from 'node:module';
import { pino, stdSerializers, type DestinationStream, type Logger as PinoLogger } from 'pino';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

const SECRET_FIELDS = ['secret', 'authorization', 'password', 'token'];
/** Fields that would hold a shopper's personal data or a request's body, should any code ever log one. */
const PERSONAL_FIELDS = ['email', 'customerEmail', 'phone', 'phoneNumber', 'firstName', 'lastName', 'address', 'shippingAddress', 'billingAddress', 'location', 'body', 'variables'];
const REDACTED_FIELDS = [...[...SECRET_FIELDS, ...PERSONAL_FIELDS].flatMap((field) => [field, `*.${field}`]), 'headers.*'];

/** Members of a database error that exist to quote the failing row or value (PostgreSQL's DETAIL and CONTEXT, the statement). */
const QUOTING_MEMBERS = new Set(['detail', 'where', 'internalQuery', 'query', 'params', 'parameters']);

const QUOTED = /"(?:[^"\\\n]|\\.)*"/g;
const EMAIL = /[^\s@"'<>(),;:]+@[^\s@"'<>(),;:]+\.[^\s@"'<>(),;:]+/g;
const PHONE = /\+\d[\d\s().-]{5,}\d/g;

/**
 * A text of an error with what may be a request's values masked: quoted literals (a Prisma
 * validation error prints the arguments it refused, PostgreSQL the value it could not read),
 * e-mail addresses and phone numbers.
 */
function withoutValues(text: string): string {
  return text.replace(QUOTED, '"…"').replace(EMAIL, '[email]').replace(PHONE, '[phone]');
}

/** Deep enough for an error's members (a Prisma error's meta, a cause's); what lies deeper is left out. */
const MAX_DEPTH = 6;

function masked(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return withoutValues(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '[…]';
  if (Array.isArray(value)) return value.map((item) => masked(item, depth + 1));
  return Object.fromEntries(Object.entries(value).filter(([key]) => !QUOTING_MEMBERS.has(key)).map(([key, item]) => [key, masked(item, depth + 1)]));
}

/** An error as pino writes it (type, message and stack with their causes, its members), every text masked and quoting members left out. */
export function loggedError(error: unknown): unknown {
  const serialized: unknown = stdSerializers.err(error as Error);
  return serialized === error ? masked(error) : masked({ ...(serialized as object) });
}

/** pino-pretty only where a person reads the terminal: not in CI, not in production, and only when installed. */
function prettyWanted(env: NodeJS.ProcessEnv): boolean {
  if (env.NODE_ENV === 'production' || /^(1|true)$/i.test(env.CI ?? '') || !process.stderr.isTTY) return false;
  try {
    createRequire(import.meta.url).resolve('pino-pretty');
    return true;
  } catch {
    return false;
  }
}

function wrap(logger: PinoLogger): Logger {
  const at = (level: 'debug' | 'info' | 'warn' | 'error') => (msg: string, fields?: Record<string, unknown>) => {
    if (fields) logger[level](fields, msg);
    else logger[level](msg);
  };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

/** A logger at `level`; `destination` replaces stderr (tests read the lines). */
export function createLogger(level: LogLevel, destination?: DestinationStream, env: NodeJS.ProcessEnv = process.env): Logger {
  const options = {
    level,
    base: undefined,
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label: string) => ({ level: label }) },
    serializers: { error: loggedError },
    redact: { paths: REDACTED_FIELDS, censor: '[redacted]' },
  };
  if (destination) return wrap(pino(options, destination));
  if (level !== 'silent' && prettyWanted(env)) {
    const { formatters: _jsonLevels, ...prettyOptions } = options;
    return wrap(pino({ ...prettyOptions, transport: { target: 'pino-pretty', options: { destination: 2, translateTime: 'SYS:HH:MM:ss.l' } } }));
  }
  return wrap(pino(options, pino.destination({ dest: 2, sync: true })));
}
