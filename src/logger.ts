// Log lines through pino: one JSON object per line on stderr, so failures can be grepped
// and shipped as-is. In development on a terminal the lines go through pino-pretty (a
// devDependency, so never in production installs). Secrets are redacted wherever a
// field of that name turns up; bodies are never passed to the logger.
import { createRequire } from 'node:module';
import { pino, stdSerializers, type DestinationStream, type Logger as PinoLogger } from 'pino';
import type { LogLevel } from './config.ts';

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

const REDACTED_FIELDS = ['secret', 'authorization', 'password', 'token', '*.secret', '*.authorization', '*.password', '*.token', 'headers.*'];

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
    serializers: { error: stdSerializers.err },
    redact: { paths: REDACTED_FIELDS, censor: '[redacted]' },
  };
  if (destination) return wrap(pino(options, destination));
  if (level !== 'silent' && prettyWanted(env)) {
    const { formatters: _jsonLevels, ...prettyOptions } = options;
    return wrap(pino({ ...prettyOptions, transport: { target: 'pino-pretty', options: { destination: 2, translateTime: 'SYS:HH:MM:ss.l' } } }));
  }
  return wrap(pino(options, pino.destination({ dest: 2, sync: true })));
}
