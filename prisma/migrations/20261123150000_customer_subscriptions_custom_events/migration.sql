-- CreateEnum
CREATE TYPE "SubscriptionChannel" AS ENUM ('EMAIL', 'SMS');

-- CreateEnum
CREATE TYPE "SubscriptionKind" AS ENUM ('MARKETING', 'TRANSACTIONAL');

-- CreateEnum
CREATE TYPE "SubscriptionStatus" AS ENUM ('SUBSCRIBED', 'CONFIRMED', 'UNSUBSCRIBED');

-- AlterTable
ALTER TABLE "Customer" ALTER COLUMN "email" DROP NOT NULL;

-- CreateTable
CREATE TABLE "CustomerPhoneNumber" (
    "storeId" TEXT NOT NULL,
    "phoneNumber" TEXT NOT NULL,
    "customerId" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "CustomerPhoneNumber_pkey" PRIMARY KEY ("storeId","phoneNumber")
);

-- CreateTable
CREATE TABLE "CustomerSubscription" (
    "storeId" TEXT NOT NULL,
    "customerId" TEXT NOT NULL,
    "channel" "SubscriptionChannel" NOT NULL,
    "kind" "SubscriptionKind" NOT NULL,
    "status" "SubscriptionStatus" NOT NULL,
    "address" TEXT NOT NULL,
    "triggerAutomations" BOOLEAN NOT NULL DEFAULT false,
    "changedAt" TIMESTAMP(3) NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "CustomerSubscription_pkey" PRIMARY KEY ("customerId","channel","kind")
);

-- CreateTable
CREATE TABLE "CustomEvent" (
    "id" TEXT NOT NULL,
    "storeId" TEXT NOT NULL,
    "customerId" TEXT NOT NULL,
    "eventName" TEXT NOT NULL,
    "occurredAt" TIMESTAMP(3) NOT NULL,
    "data" JSONB NOT NULL,
    "value" DECIMAL(65,30),
    "valueCurrency" TEXT,
    "uniqueId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "CustomEvent_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "CustomerPhoneNumber_customerId_idx" ON "CustomerPhoneNumber"("customerId");

-- CreateIndex
CREATE INDEX "CustomerSubscription_storeId_idx" ON "CustomerSubscription"("storeId");

-- CreateIndex
CREATE INDEX "CustomEvent_storeId_createdAt_id_idx" ON "CustomEvent"("storeId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "CustomEvent_customerId_occurredAt_idx" ON "CustomEvent"("customerId", "occurredAt");

-- CreateIndex
CREATE UNIQUE INDEX "CustomEvent_storeId_uniqueId_key" ON "CustomEvent"("storeId", "uniqueId");

-- AddForeignKey
ALTER TABLE "CustomerPhoneNumber" ADD CONSTRAINT "CustomerPhoneNumber_storeId_fkey" FOREIGN KEY ("storeId") REFERENCES "Store"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "CustomerPhoneNumber" ADD CONSTRAINT "CustomerPhoneNumber_customerId_fkey" FOREIGN KEY ("customerId") REFERENCES "Customer"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "CustomerSubscription" ADD CONSTRAINT "CustomerSubscription_storeId_fkey" FOREIGN KEY ("storeId") REFERENCES "Store"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "CustomerSubscription" ADD CONSTRAINT "CustomerSubscription_customerId_fkey" FOREIGN KEY ("customerId") REFERENCES "Customer"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "CustomEvent" ADD CONSTRAINT "CustomEvent_storeId_fkey" FOREIGN KEY ("storeId") REFERENCES "Store"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "CustomEvent" ADD CONSTRAINT "CustomEvent_customerId_fkey" FOREIGN KEY ("customerId") REFERENCES "Customer"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- Backfill: each number already on a profile names the customer that had it first.
INSERT INTO "CustomerPhoneNumber" ("storeId", "phoneNumber", "customerId", "createdAt")
SELECT DISTINCT ON (c."storeId", p.number) c."storeId", p.number, c."id", c."createdAt"
FROM "Customer" c CROSS JOIN LATERAL unnest(c."phoneNumbers") AS p(number)
ORDER BY c."storeId", p.number, c."createdAt", c."id";
