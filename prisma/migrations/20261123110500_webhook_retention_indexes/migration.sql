-- Webhook retention (issue 11) deletes old delivered/discarded deliveries and old events in
-- small batches; these indexes let each batch find its rows without scanning the history.

-- CreateIndex
CREATE INDEX "Event_createdAt_idx" ON "Event"("createdAt");

-- CreateIndex
CREATE INDEX "WebhookDelivery_status_completedAt_idx" ON "WebhookDelivery"("status", "completedAt");


