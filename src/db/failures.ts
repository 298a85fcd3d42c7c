// Database failures that are not the service's fault, recognised wherever they surface:
// a pg error (SQLSTATE), a socket error, Prisma's error with its driver adapter's cause,
// or any of those wrapped as the cause of another. Each door answers them in its own
// format: an unavailable database is "retry shortly" (503), input whose bytes the database
// refuses is the caller's (400).
export type DatabaseFailure = 'unavailable' | 'input';

/**
 * SQLSTATEs of a server that is down, starting, shutting down, or full of connections, or
 * that is no primary any more (25006: a demoted primary refuses writes until the connection
 * is made again on the new one).
 */
const UNAVAILABLE_SQLSTATE = /^(08...|57P0[1-3]|53300|25006)$/;
/** SQLSTATEs of input the database cannot store or evaluate: bytes not valid in the encoding (U+0000 among them), a statement nested too deep. */
const INPUT_SQLSTATES = new Set(['22021', '22P05', '54001']);
/** Node socket errors on the way to the database. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH']);
/** Prisma's codes for an unreachable server, a closed connection and a pool that timed out. */
const PRISMA_UNAVAILABLE = new Set(['P1001', 'P1002', 'P1017', 'P2024']);
/** The driver adapters' kinds for the same. */
const ADAPTER_UNAVAILABLE_KINDS = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections']);
/** node-postgres says these in words, with no code. */
const PG_CONNECTION_MESSAGES = /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error)/;

type Inspectable = { code?: unknown; severity?: unknown; kind?: unknown; originalCode?: unknown; message?: unknown; cause?: unknown; meta?: { driverAdapterError?: unknown }; originalError?: unknown };

function classifyOne(error: Inspectable): DatabaseFailure | undefined {
  const sqlstate = typeof error.originalCode === 'string' ? error.originalCode : typeof error.severity === 'string' || error.kind === 'postgres' ? error.code : undefined;
  if (typeof sqlstate === 'string') {
    if (UNAVAILABLE_SQLSTATE.test(sqlstate)) return 'unavailable';
    if (INPUT_SQLSTATES.has(sqlstate)) return 'input';
  }
  if (typeof error.kind === 'string' && ADAPTER_UNAVAILABLE_KINDS.has(error.kind)) return 'unavailable';
  if (typeof error.code === 'string' && (SOCKET_CODES.has(error.code) || PRISMA_UNAVAILABLE.has(error.code))) return 'unavailable';
  if (typeof error.message === 'string' && PG_CONNECTION_MESSAGES.test(error.message)) return 'unavailable';
  return undefined;
}

export function databaseFailure(error: unknown): DatabaseFailure | undefined {
  let current: unknown = error;
  // Bounded: a cause chain is a handful of links, and a cycle must not hang a request.
  for (let depth = 0; depth < 8 && current !== null && typeof current === 'object'; depth++) {
    const inspectable = current as Inspectable;
    const failure = classifyOne(inspectable);
    if (failure) return failure;
    current = inspectable.meta?.driverAdapterError ?? inspectable.cause ?? inspectable.originalError;
  }
  return undefined;
}

/** Seconds a client should wait before retrying while the database is unavailable. */
export const RETRY_AFTER_SECONDS = 2;
