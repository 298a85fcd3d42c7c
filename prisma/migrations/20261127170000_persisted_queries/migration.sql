-- CreateTable
CREATE TABLE "PersistedQuery" (
    "hash" TEXT NOT NULL,
    "query" TEXT NOT NULL,
    "usedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "PersistedQuery_pkey" PRIMARY KEY ("hash")
);

-- CreateIndex
CREATE INDEX "PersistedQuery_usedAt_idx" ON "PersistedQuery"("usedAt");
