-- CreateTable
CREATE TABLE "ReturnBulkAction" (
    "id" TEXT NOT NULL,
    "storeId" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "argument" TEXT,
    "returnIds" TEXT[],
    "results" JSONB NOT NULL DEFAULT '[]',
    "state" TEXT NOT NULL DEFAULT 'running',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ReturnBulkAction_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "ReturnBulkAction_storeId_key_key" ON "ReturnBulkAction"("storeId", "key");

-- AddForeignKey
ALTER TABLE "ReturnBulkAction" ADD CONSTRAINT "ReturnBulkAction_storeId_fkey" FOREIGN KEY ("storeId") REFERENCES "Store"("id") ON DELETE CASCADE ON UPDATE CASCADE;


