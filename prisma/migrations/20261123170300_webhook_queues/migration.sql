-- Deliveries already written count as queued (their queues are built below); new ones are
-- counted in by the dispatcher.
ALTER TABLE "WebhookDelivery" ADD COLUMN     "queued" BOOLEAN NOT NULL DEFAULT true;
ALTER TABLE "WebhookDelivery" ALTER COLUMN "queued" SET DEFAULT false;

-- CreateTable
CREATE TABLE "WebhookQueue" (
    "subscriptionId" TEXT NOT NULL,
    "subjectId" TEXT NOT NULL,
    "pending" INTEGER NOT NULL,
    "dueAt" TIMESTAMP(3),

    CONSTRAINT "WebhookQueue_pkey" PRIMARY KEY ("subscriptionId","subjectId")
);

-- CreateIndex
CREATE INDEX "WebhookQueue_dueAt_idx" ON "WebhookQueue"("dueAt");

-- CreateIndex
CREATE INDEX "WebhookDelivery_queued_sequence_idx" ON "WebhookDelivery"("queued", "sequence");

-- AddForeignKey
ALTER TABLE "WebhookQueue" ADD CONSTRAINT "WebhookQueue_subscriptionId_fkey" FOREIGN KEY ("subscriptionId") REFERENCES "WebhookSubscription"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The queues of what is pending now.
INSERT INTO "WebhookQueue" ("subscriptionId", "subjectId", "pending", "dueAt")
SELECT "subscriptionId", "subjectId", count(*), min("nextAttemptAt")
FROM "WebhookDelivery" WHERE "status" = 'PENDING'
GROUP BY "subscriptionId", "subjectId";
