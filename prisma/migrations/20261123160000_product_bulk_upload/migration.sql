-- CreateEnum
CREATE TYPE "ProductKind" AS ENUM ('SELLABLE', 'NON_SELLABLE');

-- AlterTable
ALTER TABLE "Product" ADD COLUMN     "externalId" TEXT;

-- AlterTable
ALTER TABLE "ProductFamily" ADD COLUMN     "externalId" TEXT,
ADD COLUMN     "kind" "ProductKind" NOT NULL DEFAULT 'SELLABLE';

-- CreateTable
CREATE TABLE "BulkOperationLock" (
    "storeId" TEXT NOT NULL,
    "operation" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "BulkOperationLock_pkey" PRIMARY KEY ("storeId","operation")
);

-- CreateIndex
CREATE UNIQUE INDEX "Product_storeId_externalId_key" ON "Product"("storeId", "externalId");

-- CreateIndex
CREATE UNIQUE INDEX "ProductFamily_storeId_externalId_key" ON "ProductFamily"("storeId", "externalId");

-- AddForeignKey
ALTER TABLE "BulkOperationLock" ADD CONSTRAINT "BulkOperationLock_storeId_fkey" FOREIGN KEY ("storeId") REFERENCES "Store"("id") ON DELETE CASCADE ON UPDATE CASCADE;


