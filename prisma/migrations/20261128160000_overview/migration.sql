-- The returns overview (src/domain/overview.ts). Returns awaiting action counted by status and
-- age from the index alone; the returns completed in a period found by their changes to complete.
CREATE INDEX "Return_storeId_status_createdAt_idx" ON "Return"("storeId", "status", "createdAt");

CREATE INDEX "ReturnStatusChange_toStatus_createdAt_returnId_idx" ON "ReturnStatusChange"("toStatus", "createdAt", "returnId");
