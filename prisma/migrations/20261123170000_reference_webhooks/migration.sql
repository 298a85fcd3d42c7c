-- CreateEnum
CREATE TYPE "WebhookPayload" AS ENUM ('NATIVE', 'REDO', 'LOOP');

-- DropIndex
DROP INDEX "WebhookDelivery_eventId_subscriptionId_key";

-- AlterTable
ALTER TABLE "WebhookSubscription" ADD COLUMN     "externalId" TEXT,
ADD COLUMN     "payload" "WebhookPayload" NOT NULL DEFAULT 'NATIVE';

-- CreateIndex
CREATE INDEX "WebhookDelivery_eventId_idx" ON "WebhookDelivery"("eventId");

-- CreateIndex
CREATE UNIQUE INDEX "WebhookSubscription_storeId_externalId_key" ON "WebhookSubscription"("storeId", "externalId");


