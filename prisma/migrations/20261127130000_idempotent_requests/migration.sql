-- CreateTable
CREATE TABLE "IdempotentRequest" (
    "clientId" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "storeId" TEXT NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "status" INTEGER NOT NULL,
    "headers" JSONB NOT NULL,
    "body" BYTEA NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "IdempotentRequest_pkey" PRIMARY KEY ("clientId","key")
);

-- CreateIndex
CREATE INDEX "IdempotentRequest_expiresAt_idx" ON "IdempotentRequest"("expiresAt");

-- CreateIndex
CREATE INDEX "IdempotentRequest_storeId_idx" ON "IdempotentRequest"("storeId");

-- AddForeignKey
ALTER TABLE "IdempotentRequest" ADD CONSTRAINT "IdempotentRequest_storeId_fkey" FOREIGN KEY ("storeId") REFERENCES "Store"("id") ON DELETE CASCADE ON UPDATE CASCADE;


