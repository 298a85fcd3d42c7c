-- CreateEnum
CREATE TYPE "CoverageType" AS ENUM ('SHIPPING_FAILURE', 'RETURN_SHIPPING');

-- CreateEnum
CREATE TYPE "InvoiceItemKind" AS ENUM ('COVERAGE_PREMIUM', 'RETURN_PROCESSING_FEE');

-- CreateTable
CREATE TABLE "CoverageProduct" (
    "id" TEXT NOT NULL,
    "storeId" TEXT NOT NULL,
    "type" "CoverageType" NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT false,
    "title" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "percentage" DECIMAL(9,4) NOT NULL,
    "minimumPrice" DECIMAL(19,4) NOT NULL,
    "maximumPrice" DECIMAL(19,4) NOT NULL,
    "eligibleProductIds" TEXT[],
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "CoverageProduct_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "OrderCoverage" (
    "id" TEXT NOT NULL,
    "storeId" TEXT NOT NULL,
    "orderId" TEXT NOT NULL,
    "orderLineItemId" TEXT NOT NULL,
    "coverageProductId" TEXT NOT NULL,
    "type" "CoverageType" NOT NULL,
    "premium" DECIMAL(19,4) NOT NULL,
    "currency" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "OrderCoverage_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "StorefrontEvent" (
    "id" TEXT NOT NULL,
    "storeId" TEXT NOT NULL,
    "eventId" TEXT NOT NULL,
    "eventName" TEXT NOT NULL,
    "occurredAt" TIMESTAMP(3) NOT NULL,
    "source" TEXT NOT NULL,
    "customerId" TEXT,
    "customerEmail" TEXT,
    "anonymousId" TEXT,
    "payload" JSONB NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "StorefrontEvent_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Invoice" (
    "id" TEXT NOT NULL,
    "storeId" TEXT NOT NULL,
    "month" TIMESTAMP(3) NOT NULL,
    "currency" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Invoice_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "InvoiceItem" (
    "id" TEXT NOT NULL,
    "invoiceId" TEXT NOT NULL,
    "kind" "InvoiceItemKind" NOT NULL,
    "description" TEXT NOT NULL,
    "subjectId" TEXT NOT NULL,
    "amount" DECIMAL(19,4) NOT NULL,
    "occurredAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "InvoiceItem_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "BillingSetting" (
    "storeId" TEXT NOT NULL,
    "returnProcessingFee" DECIMAL(19,4) NOT NULL DEFAULT 0,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "BillingSetting_pkey" PRIMARY KEY ("storeId")
);

-- CreateIndex
CREATE UNIQUE INDEX "CoverageProduct_storeId_type_key" ON "CoverageProduct"("storeId", "type");

-- CreateIndex
CREATE INDEX "OrderCoverage_orderId_idx" ON "OrderCoverage"("orderId");

-- CreateIndex
CREATE INDEX "OrderCoverage_storeId_createdAt_idx" ON "OrderCoverage"("storeId", "createdAt");

-- CreateIndex
CREATE INDEX "StorefrontEvent_storeId_createdAt_id_idx" ON "StorefrontEvent"("storeId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "StorefrontEvent_storeId_anonymousId_idx" ON "StorefrontEvent"("storeId", "anonymousId");

-- CreateIndex
CREATE INDEX "StorefrontEvent_customerId_idx" ON "StorefrontEvent"("customerId");

-- CreateIndex
CREATE UNIQUE INDEX "StorefrontEvent_storeId_eventId_key" ON "StorefrontEvent"("storeId", "eventId");

-- CreateIndex
CREATE INDEX "Invoice_storeId_month_idx" ON "Invoice"("storeId", "month");

-- CreateIndex
CREATE UNIQUE INDEX "Invoice_storeId_month_currency_key" ON "Invoice"("storeId", "month", "currency");

-- CreateIndex
CREATE INDEX "InvoiceItem_invoiceId_occurredAt_id_idx" ON "InvoiceItem"("invoiceId", "occurredAt", "id");

-- AddForeignKey
ALTER TABLE "CoverageProduct" ADD CONSTRAINT "CoverageProduct_storeId_fkey" FOREIGN KEY ("storeId") REFERENCES "Store"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "OrderCoverage" ADD CONSTRAINT "OrderCoverage_storeId_fkey" FOREIGN KEY ("storeId") REFERENCES "Store"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "OrderCoverage" ADD CONSTRAINT "OrderCoverage_orderId_fkey" FOREIGN KEY ("orderId") REFERENCES "Order"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "StorefrontEvent" ADD CONSTRAINT "StorefrontEvent_storeId_fkey" FOREIGN KEY ("storeId") REFERENCES "Store"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "StorefrontEvent" ADD CONSTRAINT "StorefrontEvent_customerId_fkey" FOREIGN KEY ("customerId") REFERENCES "Customer"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Invoice" ADD CONSTRAINT "Invoice_storeId_fkey" FOREIGN KEY ("storeId") REFERENCES "Store"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "InvoiceItem" ADD CONSTRAINT "InvoiceItem_invoiceId_fkey" FOREIGN KEY ("invoiceId") REFERENCES "Invoice"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "BillingSetting" ADD CONSTRAINT "BillingSetting_storeId_fkey" FOREIGN KEY ("storeId") REFERENCES "Store"("id") ON DELETE CASCADE ON UPDATE CASCADE;


