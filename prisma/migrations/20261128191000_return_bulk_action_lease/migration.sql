-- A bulk action on returns outlives the instance that started it (issue 43): it is worked on by
-- the background work of whichever instance claims it (FOR UPDATE SKIP LOCKED, a lease on the
-- database clock, as the webhook dispatcher claims deliveries), and each return's result is
-- recorded in the transaction of the operation on it, so a resumed run skips the returns done.
-- Actions left running by an earlier version have no lease: the first instance resumes them.
ALTER TABLE "ReturnBulkAction" ADD COLUMN "startedBy" JSONB NOT NULL DEFAULT '{}',
ADD COLUMN "leasedBy" TEXT,
ADD COLUMN "leasedUntil" TIMESTAMP(3);

CREATE INDEX "ReturnBulkAction_state_leasedUntil_idx" ON "ReturnBulkAction"("state", "leasedUntil");
