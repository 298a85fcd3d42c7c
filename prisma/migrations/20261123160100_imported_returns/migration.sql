-- AlterTable
ALTER TABLE "Return" ADD COLUMN     "customerEmail" TEXT,
ADD COLUMN     "customerFirstName" TEXT,
ADD COLUMN     "customerLastName" TEXT,
ADD COLUMN     "destinationAddress" JSONB,
ADD COLUMN     "externalReferenceId" TEXT,
ALTER COLUMN "orderId" DROP NOT NULL;

-- AlterTable
ALTER TABLE "ReturnItem" ADD COLUMN     "barcode" TEXT,
ADD COLUMN     "condition" TEXT,
ADD COLUMN     "position" INTEGER,
ADD COLUMN     "productId" TEXT,
ADD COLUMN     "sku" TEXT,
ADD COLUMN     "title" TEXT,
ADD COLUMN     "unitPrice" DECIMAL(19,4),
ADD COLUMN     "variantTitle" TEXT,
ALTER COLUMN "orderLineItemId" DROP NOT NULL;

-- CreateIndex
CREATE INDEX "Return_storeId_externalReferenceId_idx" ON "Return"("storeId", "externalReferenceId");

-- CreateIndex
CREATE INDEX "ReturnItem_productId_idx" ON "ReturnItem"("productId");

-- AddForeignKey
ALTER TABLE "ReturnItem" ADD CONSTRAINT "ReturnItem_productId_fkey" FOREIGN KEY ("productId") REFERENCES "Product"("id") ON DELETE SET NULL ON UPDATE CASCADE;


