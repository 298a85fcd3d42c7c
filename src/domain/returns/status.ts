// A return's status machine: which operations each status allows and where each leads.
import { ReturnStatus as RETURN_STATUSES, type ReturnStatus } from '../../generated/prisma/client.ts';
import { UnprocessableState } from '../errors.ts';

export type ReturnOperation = 'process' | 'flag' | 'reject' | 'reset' | 'delete' | 'remove' | 'note';

/** Statuses in which a return is still being handled. */
export const IN_PROGRESS: readonly ReturnStatus[] = ['open', 'in_transit', 'delivered', 'needs_review', 'in_review', 'flagged'];

/**
 * The statuses each operation may start from. complete and rejected are final: only a
 * reset leaves them; a deleted return takes no operation at all.
 */
export const ALLOWED_FROM: Record<ReturnOperation, readonly ReturnStatus[]> = {
  process: IN_PROGRESS,
  flag: IN_PROGRESS.filter((status) => status !== 'flagged'),
  reject: IN_PROGRESS,
  reset: [...IN_PROGRESS, 'complete', 'rejected'],
  delete: [...IN_PROGRESS, 'complete', 'rejected'],
  remove: IN_PROGRESS,
  note: [...IN_PROGRESS, 'complete', 'rejected'],
};

export type StatusOperation = Extract<ReturnOperation, 'process' | 'flag' | 'reject' | 'reset' | 'delete'>;

/** Where each status-changing operation leads. */
export const TARGET_STATUS: Record<StatusOperation, ReturnStatus> = {
  process: 'complete',
  flag: 'flagged',
  reject: 'rejected',
  reset: 'open',
  delete: 'deleted',
};

/**
 * The statuses a return can be in through this service, in the enum's order: a new return
 * starts open (where a reset leads too), and each status-changing operation leads to its
 * target. The others (in_transit, delivered, needs_review, in_review) only arrive with data
 * written outside the service.
 */
export const REACHABLE_STATUSES: readonly ReturnStatus[] = Object.values(RETURN_STATUSES).filter((status) =>
  Object.values(TARGET_STATUS).includes(status),
);

/** Returns in these statuses no longer claim the ordered quantities of their items. */
export const RELEASED: ReturnStatus[] = ['rejected', 'deleted'];

export function canApply(operation: ReturnOperation, status: ReturnStatus): boolean {
  return ALLOWED_FROM[operation].includes(status);
}

/** The operations a return in `status` takes, in ALLOWED_FROM's order: what a page may offer. */
export function allowedOperations(status: ReturnStatus): ReturnOperation[] {
  return (Object.keys(ALLOWED_FROM) as ReturnOperation[]).filter((operation) => canApply(operation, status));
}

export function assertAllowed(operation: ReturnOperation, target: { label: string; status: ReturnStatus }): void {
  if (!canApply(operation, target.status)) {
    throw new UnprocessableState(`${target.label} is ${target.status}: ${operation} is not allowed in that status`);
  }
}
