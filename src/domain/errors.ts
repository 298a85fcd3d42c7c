// Typed failures of the domain. Each front door maps them to its own error format
// in one place (GraphQL extensions.code, REST problem+json, compat bodies).
import { Prisma } from '../generated/prisma/client.ts';

/** Prisma's unique-constraint violation, for races the pre-checks cannot exclude. */
export function isUniqueViolation(error: unknown): boolean {
  return error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002';
}

export type DomainErrorCode = 'NOT_FOUND' | 'CONFLICT' | 'INVALID' | 'FORBIDDEN' | 'UNPROCESSABLE_STATE';

export interface FieldIssue {
  /** Dotted path of the offending input, e.g. `lineItems.0.quantity`. */
  path: string;
  message: string;
}

export abstract class DomainError extends Error {
  abstract readonly code: DomainErrorCode;
  readonly path?: string;
  readonly issues: FieldIssue[];

  constructor(message: string, options: { path?: string; issues?: FieldIssue[] } = {}) {
    super(message);
    this.name = new.target.name;
    this.path = options.path;
    this.issues = options.issues ?? (options.path ? [{ path: options.path, message }] : []);
  }
}

export class NotFound extends DomainError {
  readonly code = 'NOT_FOUND' as const;
}

export class Conflict extends DomainError {
  readonly code = 'CONFLICT' as const;
}

export class Invalid extends DomainError {
  readonly code = 'INVALID' as const;

  /** One Invalid carrying every issue found, so a client can fix them all at once. */
  static of(issues: FieldIssue[]): Invalid {
    const first = issues[0];
    const message = issues.length === 1 ? `${first.path}: ${first.message}` : issues.map((i) => `${i.path}: ${i.message}`).join('; ');
    return new Invalid(message, { path: first.path, issues });
  }
}

export class Forbidden extends DomainError {
  readonly code = 'FORBIDDEN' as const;
}

/** The record exists but its state does not allow the operation (e.g. processing a rejected return). */
export class UnprocessableState extends DomainError {
  readonly code = 'UNPROCESSABLE_STATE' as const;
}

export function isDomainError(error: unknown): error is DomainError {
  return error instanceof DomainError;
}
